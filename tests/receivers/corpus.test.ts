import * as pulumi from "@pulumi/pulumi";
import { Domain, DomainArgs } from "../../provider";
import { createClient, type DnsRecord } from "../../provider/client";
import { quoteTxt } from "../../provider/dns";
import type { CheckName } from "../../provider/inputs";
import { receiversAccept } from "../../provider/receivers";
import { receiversJudge } from "../../provider/verification/receivers-judge";
import { judgedChecks } from "../../provider/verification/receivers-step";
import { failingChecks } from "../../provider/verification/report";
import { judgeSentMessage, runProgram, type MessageJudgement } from "../../testing";
import { useEmulator } from "../support/emulator";
import { dkimPublicKey } from "../support/receivers-world";
import {
  judgeMessages,
  pyspfIdentities,
  receiversHere,
  requireReceiversWhereInstalled,
  useReceivers,
  type Judgement,
} from "../support/receivers";
import type { Emulator } from "../../emulator";

/**
 * Issue 34's proof: the package reports a domain verified exactly when receivers nobody here wrote
 * accept its mail. Each posture is a Domain made through the test kit against the emulator (one
 * live run for all of them), some changed afterwards as a colleague or a stale record would;
 * then the emulator sends a message from each, signed as Postal signs it, and rspamd, pyspf,
 * dkimpy and authheaders (DMARC) judge it with every query sent to the emulator's DNS.
 *
 * The package's verdict is what a verification decides at the end of its wait: the service's
 * checks pass, and receivers' judgement (`receiversJudge`, what the wait calls) accepts. Receivers
 * accept when each check the verification asks for passes as they judge it (`spf`: the domain's own
 * record; `spf` or `returnPath`: the envelope sender's domain; each from an IPv4 and an IPv6
 * sender; `dkim`: a signature with d= the domain), DMARC passes where a policy governs the domain,
 * and the envelope's SPF or DKIM passes.
 * pyspf, dkimpy and authheaders are the RFC's reference here; rspamd is asked too, and where it
 * departs from the RFC (it takes the first of two SPF records) the posture says so.
 */

const here = receiversHere();
requireReceiversWhereInstalled(here, "Receivers corpus");

const ALL: CheckName[] = ["spf", "dkim", "mx", "returnPath"];
const NO_DKIM: CheckName[] = ["spf", "mx", "returnPath"];
const INCLUDE = "spf.postal.example.com";
/** A sender of the service's, from its include (IPv6), as the package judges both families. */
const IPV6_SENDER = "2001:db8::10";

interface Context {
  emulator: Emulator;
  name: string;
  /** The zone's id (for the emulator's records) and name. */
  zone: string;
  zoneName: string;
  records: DnsRecord[];
}

interface Posture {
  /** The domain's first label (authheaders cuts a From domain at a hyphen: none here). */
  id: string;
  what: string;
  zone?: "example.net" | "example.org";
  /** Labels between the id and the zone (`eu` for `p.eu.example.org`). */
  under?: string;
  args?: Partial<DomainArgs>;
  checks?: CheckName[];
  /** Records in the zone before the run. */
  seed?: (context: Omit<Context, "records">) => Promise<void>;
  /** What someone changes once the Domain is verified. */
  after?: (context: Context) => Promise<void>;
  /** Where the package knowingly departs from a receiver, and the RFC's reason. */
  departs?: string;
}

const txt = (name: string, content: string) => ({ name, type: "TXT", content: quoteTxt(content), ttl: 300 });

async function replaceTxt(context: Context, name: string, content: string): Promise<void> {
  for (const record of context.emulator.cloudflare.records(context.zone, { name }))
    if (record.type === "TXT") await context.emulator.cloudflare.removeRecord(context.zone, record.id);
  await context.emulator.cloudflare.addRecord(context.zone, {
    name,
    type: "TXT",
    content: quoteTxt(content),
    ttl: 300,
  });
}

const dkimName = (context: Context) => context.records.find((record) => record.purpose === "dkim")!.name;
const dkimValue = (context: Context) => context.records.find((record) => record.purpose === "dkim")!.content;

const POSTURES: Posture[] = [
  { id: "asked", what: "published as the service asks" },
  { id: "reject", what: "DMARC p=reject, relaxed", args: { dmarc: { policy: "reject" } } },
  {
    id: "strict",
    what: "DMARC p=reject, aspf=s (SPF never aligns with psrp.): DKIM carries it",
    args: { dmarc: { policy: "reject", spfAlignment: "strict" } },
  },
  {
    id: "sendonly",
    what: "sending only (mx: false)",
    args: { mx: false },
    checks: ["spf", "dkim", "returnPath"],
  },
  {
    id: "twospf",
    what: "a second SPF record added later at the relative name Cloudflare takes (`twospf`)",
    after: (c) =>
      c.emulator.cloudflare
        .addRecord(c.zone, txt("twospf", "v=spf1 include:_spf.mailer.example.com ~all"))
        .then(() => undefined),
    departs: "rspamd 3.4 takes the first of two SPF records; RFC 7208 §4.5 and pyspf: permerror",
  },
  {
    id: "twodmarc",
    what: "a second DMARC record added later: no DMARC is applied",
    departs:
      "RFC 7489 §6.6.3: with two records no policy applies (authheaders: none); rspamd: permerror. The domain's " +
      "published policy protects nothing: not a pass",
    args: { dmarc: { policy: "none" } },
    after: (c) =>
      c.emulator.cloudflare
        .addRecord(c.zone, txt(`_dmarc.${c.name}`, "v=DMARC1; p=reject"))
        .then(() => undefined),
  },
  {
    id: "capitals",
    what: "the user's SPF record names the include in capitals (merge respells it)",
    args: { cloudflare: { zoneId: "", existingRecords: { spf: "merge" } } },
    seed: ({ emulator, name, zone }) =>
      emulator.cloudflare
        .addRecord(zone, txt(name, `v=spf1 mx INCLUDE:${INCLUDE.toUpperCase()} ~all`))
        .then(() => undefined),
  },
  {
    id: "orgpolicy",
    zone: "example.org",
    what: "no own DMARC: the organizational domain's p=reject aspf=s governs",
  },
  {
    id: "parent",
    zone: "example.org",
    under: "eu",
    what: "DMARC at a parent that is not the organizational domain (ignored by receivers)",
    seed: ({ emulator }) =>
      emulator.cloudflare
        .addRecord("example.org", txt("_dmarc.eu.example.org", "v=DMARC1; p=none"))
        .then(() => undefined),
  },
  {
    id: "oldkey",
    what: "p=reject aspf=s, verification without DKIM, and the DKIM record then replaced by an old key",
    args: { dmarc: { policy: "reject", spfAlignment: "strict" } },
    checks: NO_DKIM,
    after: (c) => replaceTxt(c, dkimName(c), `v=DKIM1; k=rsa; p=${dkimPublicKey(1024)}`),
  },
  {
    id: "revoked",
    what: "DKIM key revoked (p=), no DMARC, verification without DKIM: SPF carries the mail",
    checks: NO_DKIM,
    after: (c) => replaceTxt(c, dkimName(c), "v=DKIM1; p="),
  },
  {
    id: "testing",
    what: "DKIM key in testing mode (t=y), p=reject aspf=s, verification without DKIM",
    args: { dmarc: { policy: "reject", spfAlignment: "strict" } },
    checks: NO_DKIM,
    // The service's DKIM check then fails (the record is not the one it asked for), and Postal signs
    // with the installation's own key: the domain's mail has no aligned signature.
    after: (c) => replaceTxt(c, dkimName(c), dkimValue(c).replace("t=s", "t=y:s")),
  },
  {
    id: "colleague",
    what: "a colleague's SPF record without the service's include added later, before the Domain's",
    after: async (c) => {
      // Listed first, where rspamd (which takes the first of two) meets it.
      const ours = c.emulator.cloudflare.records(c.zone, { name: c.name }).find((r) => r.type === "TXT")!;
      await c.emulator.cloudflare.removeRecord(c.zone, ours.id);
      await c.emulator.cloudflare.addRecord(c.zone, txt(c.name, "v=spf1 ip4:198.51.100.0/24 -all"));
      await c.emulator.cloudflare.addRecord(c.zone, {
        name: c.name,
        type: "TXT",
        content: ours.content,
        ttl: 300,
      });
    },
  },
  {
    id: "voids",
    what: "the domain's record makes 3 void lookups (the service's check still finds its include)",
    after: (c) =>
      replaceTxt(
        c,
        c.name,
        `v=spf1 a:gone1.example.net a:gone2.example.net a:gone3.example.net include:${INCLUDE} ~all`,
      ),
  },
  {
    id: "ipsix",
    what: "void lookups only an IPv6 sender makes (hosts with A records only)",
    seed: async ({ emulator, zone, zoneName }) => {
      for (const host of ["vfour1", "vfour2"])
        await emulator.cloudflare.addRecord(zone, {
          name: `${host}.${zoneName}`,
          type: "A",
          content: "192.0.2.99",
          ttl: 300,
        });
    },
    after: (c) =>
      replaceTxt(c, c.name, `v=spf1 a a:vfour1.${c.zoneName} a:vfour2.${c.zoneName} include:${INCLUDE} ~all`),
  },
  {
    id: "toomany",
    what: "the domain's record needs 11 lookups",
    seed: async ({ emulator, zone, zoneName }) => {
      for (let i = 0; i < 10; i++)
        await emulator.cloudflare.addRecord(
          zone,
          txt(`n${i}.${zoneName}`, i < 9 ? `v=spf1 include:n${i + 1}.${zoneName} -all` : "v=spf1 -all"),
        );
    },
    after: (c) => replaceTxt(c, c.name, `v=spf1 include:n0.${c.zoneName} include:${INCLUDE} ~all`),
  },
  {
    id: "elsewhere",
    what: "the return path moved to another host (verification without returnPath): the envelope is the service's own",
    args: { dmarc: { policy: "reject" } },
    checks: ["spf", "dkim", "mx"],
    after: async (c) => {
      const name = c.records.find((record) => record.purpose === "return_path")!.name;
      for (const record of c.emulator.cloudflare.records(c.zone, { name }))
        await c.emulator.cloudflare.removeRecord(c.zone, record.id);
      await c.emulator.cloudflare.addRecord(c.zone, {
        name,
        type: "CNAME",
        content: "bounces.example.net",
        ttl: 300,
      });
    },
  },
  {
    id: "nodkimdmarc",
    what: "p=quarantine pct=0 aspf=s with the DKIM key replaced: DMARC fails (none applied)",
    args: { dmarc: { policy: "quarantine", percent: 0, spfAlignment: "strict" } },
    checks: NO_DKIM,
    after: (c) => replaceTxt(c, dkimName(c), `v=DKIM1; k=rsa; p=${dkimPublicKey(1024)}`),
  },
  {
    id: "softall",
    what: "the domain's record replaced by v=spf1 -all (verification without SPF): the envelope's SPF and DKIM carry it",
    checks: ["dkim", "mx", "returnPath"],
    after: (c) => replaceTxt(c, c.name, "v=spf1 -all"),
  },
  {
    id: "cnamekey",
    what: "the DKIM name made a CNAME to a name that serves the service's key",
    after: async (c) => {
      const name = dkimName(c);
      const target = `keys.${c.zoneName}`;
      await c.emulator.cloudflare.addRecord(c.zone, txt(target, dkimValue(c)));
      for (const record of c.emulator.cloudflare.records(c.zone, { name }))
        await c.emulator.cloudflare.removeRecord(c.zone, record.id);
      await c.emulator.cloudflare.addRecord(c.zone, { name, type: "CNAME", content: target, ttl: 300 });
    },
  },
  {
    id: "plusall",
    what: "the domain's record replaced by v=spf1 +all, no include (verification without SPF)",
    checks: ["dkim", "mx", "returnPath"],
    after: (c) => replaceTxt(c, c.name, "v=spf1 +all"),
  },
];

let zones: Record<string, string> = {};
const domainOf = (posture: Posture) =>
  [posture.id, posture.under, posture.zone ?? "example.net"].filter(Boolean).join(".");

interface Row {
  posture: Posture;
  records: DnsRecord[];
  packageVerified: boolean;
  runReceivers?: unknown;
  judgement?: Judgement;
  receiversAccept?: boolean;
  receivers?: { spf: string; dkim: string; dmarc: string };
  pyspf?: string[];
  /** The kit's judgement of the sent message (`judgeSentMessage`). */
  kit?: MessageJudgement;
}

(here.available ? describe : describe.skip)(
  `receivers' verdicts and the package's${here.available ? "" : ` — skipped: ${here.reason}`}`,
  () => {
    const emulator = useEmulator({ zones: ["example.net", "example.org", "example.com"] });
    const receivers = useReceivers(here, () => emulator().dns.port);
    const rows: Row[] = [];

    beforeAll(async () => {
      const e = emulator();
      zones = Object.fromEntries(e.cloudflare.zones.map((zone) => [zone.name, zone.id]));
      await e.cloudflare.addRecord(
        zones["example.org"],
        txt("_dmarc.example.org", "v=DMARC1; p=reject; aspf=s"),
      );
      for (const posture of POSTURES)
        await posture.seed?.({
          emulator: e,
          name: domainOf(posture),
          zone: zones[posture.zone ?? "example.net"],
          zoneName: posture.zone ?? "example.net",
        });

      const run = await runProgram(
        () => {
          const outputs: Record<string, pulumi.Output<unknown>> = {};
          for (const posture of POSTURES) {
            const zoneId = zones[posture.zone ?? "example.net"];
            const domain = new Domain(posture.id, {
              name: domainOf(posture),
              ...posture.args,
              cloudflare: { ...posture.args?.cloudflare, zoneId },
              verification: {
                checks: posture.checks ?? ALL,
                timeoutSeconds: 30,
                pollIntervalSeconds: 1,
                whenReceiversReject: "warn",
              },
            });
            outputs[posture.id] = pulumi.output({
              records: domain.dnsRecords,
              domainId: domain.domainId,
              receivers: domain.receivers,
            });
          }
          return outputs;
        },
        { mode: "live", emulator: e, timeoutMs: 120_000 },
      );
      expect(run.errors).toEqual([]);
      const made = run.outputs as Record<
        string,
        { records: DnsRecord[]; domainId: number; receivers: unknown }
      >;

      for (const posture of POSTURES) {
        const context: Context = {
          emulator: e,
          name: domainOf(posture),
          zone: zones[posture.zone ?? "example.net"],
          zoneName: posture.zone ?? "example.net",
          records: made[posture.id].records,
        };
        await posture.after?.(context);
      }

      // What the wait decides now: the service's check (which also sets the statuses the service
      // sends by: the domain's DKIM key while its check passes, its return path while that one
      // does, as Postal does), then receivers' judgement of DNS as served.
      const client = createClient({ baseUrl: e.emailApi.url, apiKey: e.emailApi.apiKey });
      const verdicts = new Map<string, boolean>();
      for (const posture of POSTURES) {
        const checks = posture.checks ?? ALL;
        const { records, domainId } = made[posture.id];
        const result = await client.checkDomain(domainId);
        const judge = receiversJudge(records, { nameservers: [e.dns.address] })!;
        const accepted = receiversAccept(await judge(), judgedChecks(checks));
        verdicts.set(posture.id, failingChecks(result, checks).length === 0 && accepted === true);
      }

      const api = { "X-Server-API-Key": e.emailApi.apiKey, "Content-Type": "application/json" };
      for (const posture of POSTURES) {
        const response = await fetch(`${e.emailApi.url}/api/v1/send/message`, {
          method: "POST",
          headers: api,
          body: JSON.stringify({
            to: ["someone@example.com"],
            from: `news@${domainOf(posture)}`,
            subject: posture.id,
            plain_body: `Posture ${posture.id}.`,
          }),
        });
        expect(((await response.json()) as { status: string }).status).toBe("success");
      }
      const sent = e.emailApi.messages();
      const messages = POSTURES.map((posture) => {
        const message = sent.find((m) => m.from === `news@${domainOf(posture)}`)!;
        return {
          id: posture.id,
          raw: message.raw,
          mailFrom: message.mailFrom,
          helo: message.helo,
          clientIp: message.clientIp,
          rcptTo: message.rcptTo,
          dnsPort: e.dns.port,
        };
      });
      const judged = await judgeMessages(receivers(), messages);
      const kit = await Promise.all(messages.map((message) => judgeSentMessage(e, message)));
      // The SPF identities pyspf judges besides the message's envelope from IPv4: the envelope from
      // IPv6, the domain's own record from both.
      const identities = POSTURES.flatMap((posture, index) => {
        const envelope = messages[index].mailFrom.split("@")[1];
        return [
          { id: `${posture.id} envelope v6`, domain: envelope, ip: IPV6_SENDER, helo: messages[index].helo },
          {
            id: `${posture.id} domain v4`,
            domain: domainOf(posture),
            ip: messages[index].clientIp,
            helo: messages[index].helo,
          },
          {
            id: `${posture.id} domain v6`,
            domain: domainOf(posture),
            ip: IPV6_SENDER,
            helo: messages[index].helo,
          },
        ];
      });
      const spf = await pyspfIdentities(receivers().python, e.dns.port, identities);

      for (const [index, posture] of POSTURES.entries()) {
        const checks = posture.checks ?? ALL;
        const { records, receivers: runReceivers } = made[posture.id];
        const judgement = judged[index];
        const pyspf = [judgement.pyspf.result, ...[0, 1, 2].map((k) => spf[index * 3 + k].result)];
        const from = domainOf(posture);
        const dkim = judgement.dkimpy.signatures.some((s) => s.domain === from && s.result === "pass")
          ? "pass"
          : "fail";
        // pyspf: the envelope from IPv4 (the message) and IPv6, then the domain's own record from both.
        const envelopeSpf = pyspf.slice(0, 2).every((r) => r === "pass");
        const domainSpf = pyspf.slice(2).every((r) => r === "pass");
        const spfVerdict = envelopeSpf && domainSpf ? "pass" : "fail";
        // DMARC published but not applied (two records: authheaders none, rspamd permerror) is no pass.
        const dmarc =
          judgement.dmarc.result === "none" && judgement.rspamd.dmarc === "none"
            ? "none"
            : judgement.dmarc.result === "pass"
              ? "pass"
              : "fail";
        const asked = judgedChecks(checks);
        // Receivers' verdict, for the checks the verification asks: the domain's own record (`spf`),
        // the envelope sender's (`spf` or `returnPath`), DKIM; DMARC where published; and the
        // envelope's SPF or DKIM passing.
        const receiversOk =
          (!asked.spf || domainSpf) &&
          (!asked.envelope || envelopeSpf) &&
          (!asked.dkim || dkim === "pass") &&
          (dmarc === "pass" || dmarc === "none") &&
          (envelopeSpf || dkim === "pass");
        rows.push({
          posture,
          records,
          packageVerified: verdicts.get(posture.id)!,
          runReceivers,
          judgement,
          receiversAccept: receiversOk,
          kit: kit[index],
          receivers: { spf: spfVerdict, dkim, dmarc },
          pyspf,
        });
      }
      console.log(table(rows));
    }, 300_000);

    it(`covers ${POSTURES.length} postures (at least 20)`, () => {
      expect(POSTURES.length).toBeGreaterThanOrEqual(20);
      expect(rows).toHaveLength(POSTURES.length);
    });

    it.each(POSTURES.map((posture) => [posture.id, posture.what]))(
      "%s (%s): verified exactly when receivers accept the mail",
      (id) => {
        const row = rows.find((candidate) => candidate.posture.id === id)!;
        expect({ id, verified: row.packageVerified }).toEqual({ id, verified: row.receiversAccept });
      },
    );

    it("rspamd agrees with the reference receivers on SPF and DMARC, but where it takes the first of two SPF records or calls two DMARC records a permerror", () => {
      for (const row of rows) {
        const rspamd = row.judgement!.rspamd;
        if (!row.posture.departs?.includes("first of two SPF records"))
          expect({ id: row.posture.id, spf: rspamd.spf }).toEqual({ id: row.posture.id, spf: row.pyspf![0] });
        if (!row.posture.departs?.includes("RFC 7489 §6.6.3"))
          expect({ id: row.posture.id, dmarc: rspamd.dmarc }).toEqual({
            id: row.posture.id,
            dmarc: row.judgement!.dmarc.result,
          });
      }
    });

    it("the kit judges each sent message as pyspf, dkimpy and authheaders do (judgeSentMessage)", () => {
      for (const row of rows) {
        const { id } = row.posture;
        const kit = row.kit!;
        const reference = row.judgement!;
        const aligned = (signatures: { domain?: string | null; result: string }[]) =>
          signatures.some((s) => s.domain === kit.fromDomain && s.result === "pass");
        expect({ id, spf: kit.spf.result }).toEqual({ id, spf: reference.pyspf.result });
        expect({ id, dkim: aligned(kit.dkim) }).toEqual({ id, dkim: aligned(reference.dkimpy.signatures) });
        expect({ id, dmarc: kit.dmarc.result }).toEqual({ id, dmarc: reference.dmarc.result });
      }
    });

    it("the wait judged the postures made at the run as it judges them now (its output)", () => {
      for (const row of rows.filter((candidate) => !candidate.posture.after)) {
        expect({
          id: row.posture.id,
          accepted: (row.runReceivers as { accepted: boolean | null }).accepted,
        }).toEqual({
          id: row.posture.id,
          accepted: row.packageVerified,
        });
      }
    });
  },
);

/** The corpus as a table, for the record (each run prints it; nothing asserts on its layout). */
function table(rows: Row[]): string {
  const lines = rows.map((row) => {
    const r = row.judgement!;
    return [
      row.posture.id.padEnd(12),
      (row.packageVerified ? "verified" : "not").padEnd(9),
      (row.receiversAccept ? "accept" : "reject").padEnd(7),
      `rspamd ${r.rspamd.spf}/${r.rspamd.dkim}/${r.rspamd.dmarc}`.padEnd(34),
      `pyspf ${row.pyspf!.join(",")}`.padEnd(40),
      `dkimpy ${r.dkimpy.result}`.padEnd(13),
      `dmarc ${r.dmarc.result}`,
    ].join(" ");
  });
  return [
    "posture      package   recv    rspamd spf/dkim/dmarc               pyspf env4,env6,dom4,dom6               dkimpy        authheaders",
    ...lines,
  ].join("\n");
}
