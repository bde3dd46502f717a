import { spawnSync } from "node:child_process";
import { generateKeyPair } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { quoteTxt } from "../../provider/dns";
import { useEmulator } from "../support/emulator";
import { destinations, TRACED } from "../support/offline";
import {
  dkimpySign,
  judgeMessages,
  Judgement,
  MessageToJudge,
  pyspfIdentities,
  receiversHere,
  requireReceiversWhereInstalled,
  useReceivers,
} from "../support/receivers";

/**
 * The receivers harness (support/receivers.ts) against the emulator's DNS: a domain publishes SPF,
 * a DKIM key and DMARC; a message signed by dkimpy from an authorized address passes rspamd,
 * pyspf, dkimpy and authheaders' DMARC; one from another address with a broken signature fails
 * them, and DMARC says reject; a domain with two SPF records is a permerror to pyspf. Where strace
 * works, rspamd and the Python receivers run under it, and every address they sent to is the
 * emulator's DNS. Skipped, saying why, where a receiver is not installed (required where .ci/run
 * installed them).
 */

const here = receiversHere();
requireReceiversWhereInstalled(here, "Receivers harness test");

const traces = {
  rspamd: path.join(os.tmpdir(), `receivers-harness-${process.pid}-rspamd.strace`),
  python: path.join(os.tmpdir(), `receivers-harness-${process.pid}-python.strace`),
};
/** strace appending (-A) to `file` (the Python helper runs several times), stopping only at sends. */
const tracer = (file: string) => ["strace", "-f", "--seccomp-bpf", "-A", "-e", `trace=${TRACED}`, "-o", file];

/** Whether that tracer runs here (probed while no server of this process must answer it). */
function straceHere(): { available: true } | { available: false; reason: string } {
  if (!here.available) return here;
  const [command, ...args] = tracer(traces.rspamd);
  const probe = spawnSync(command, [...args, "true"], { encoding: "utf8", timeout: 30_000 });
  fs.rmSync(traces.rspamd, { force: true });
  if (probe.status === 0) return { available: true };
  const why = (probe.error?.message ?? probe.stderr).trim() || `exit ${probe.status}`;
  return { available: false, reason: `strace cannot trace here (${why}; Debian: apt-get install strace)` };
}
const strace = straceHere();

// authheaders cuts a From domain at its first hyphen: these have none.
const DOMAIN = "harness1.example.com";
const TWO_SPF = "harness2.example.com";
const SELECTOR = "sel1";
const ALLOWED_IP = "192.0.2.10";
const OTHER_IP = "198.51.100.7";
const HELO = "mta.harness1.example.com";

function message(from: string, subject: string, body: string): string {
  return [
    `From: Harness <${from}>`,
    "To: someone@example.com",
    `Subject: ${subject}`,
    "Date: Tue, 03 Mar 2026 10:00:00 +0000",
    `Message-ID: <${subject.replace(/\W/g, "")}@${from.split("@")[1]}>`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    body,
    "",
  ].join("\r\n");
}

(here.available ? describe : describe.skip)(
  `receivers harness${here.available ? "" : ` — skipped: ${here.reason}`}`,
  () => {
    const emulator = useEmulator();
    const receivers = useReceivers(
      here,
      () => emulator().dns.port,
      strace.available ? { rspamd: tracer(traces.rspamd), python: tracer(traces.python) } : {},
    );
    afterAll(() => Object.values(traces).forEach((file) => fs.rmSync(file, { force: true })));
    let judged: Judgement[];
    let messages: MessageToJudge[];
    const rsaKey = () =>
      promisify(generateKeyPair)("rsa", {
        modulusLength: 2048,
        publicKeyEncoding: { type: "spki", format: "der" },
        privateKeyEncoding: { type: "pkcs1", format: "pem" },
      });
    const dkimRecord = (publicKey: Buffer) => `v=DKIM1; k=rsa; p=${publicKey.toString("base64")}`;

    beforeAll(async () => {
      const { publicKey, privateKey } = await rsaKey();
      const records = [
        { name: DOMAIN, content: `v=spf1 ip4:${ALLOWED_IP} -all` },
        { name: `${SELECTOR}._domainkey.${DOMAIN}`, content: dkimRecord(publicKey) },
        { name: `_dmarc.${DOMAIN}`, content: "v=DMARC1; p=reject" },
        { name: TWO_SPF, content: `v=spf1 ip4:${ALLOWED_IP} -all` },
        { name: TWO_SPF, content: "v=spf1 -all" },
      ];
      for (const { name, content } of records)
        await emulator().cloudflare.addRecord("example.com", {
          type: "TXT",
          name,
          content: quoteTxt(content),
        });

      const [good, bad] = await dkimpySign(
        receivers().python,
        ["good", "bad"].map((subject) => ({
          raw: message(`news@${DOMAIN}`, subject, `Hello, ${subject} message.`),
          domain: DOMAIN,
          selector: SELECTOR,
          privateKeyPem: privateKey,
        })),
      );
      const dnsPort = emulator().dns.port;
      const envelope = { helo: HELO, rcptTo: "someone@example.com", dnsPort };
      messages = [
        { id: "good", raw: good, mailFrom: `bounce@${DOMAIN}`, clientIp: ALLOWED_IP, ...envelope },
        // Changed after signing: the body hash no longer matches.
        {
          id: "bad",
          raw: bad.replace("bad message.", "bad message!"),
          mailFrom: `bounce@${DOMAIN}`,
          clientIp: OTHER_IP,
          ...envelope,
        },
        {
          id: "two-spf",
          raw: message(`news@${TWO_SPF}`, "twospf", "Two SPF records."),
          mailFrom: `bounce@${TWO_SPF}`,
          clientIp: ALLOWED_IP,
          ...envelope,
        },
      ];
      judged = await judgeMessages(receivers(), messages);
    }, 120_000);

    const verdict = (id: string) => {
      const found = judged.find((judgement) => judgement.id === id)!;
      return {
        rspamd: {
          spf: found.rspamd.spf,
          dkim: found.rspamd.dkim,
          dmarc: found.rspamd.dmarc,
          policy: found.rspamd.policy,
        },
        pyspf: found.pyspf.result,
        dkimpy: found.dkimpy.result,
        dmarc: { result: found.dmarc.result, policy: found.dmarc.policy },
      };
    };

    it("passes a signed message from an authorized address with every receiver", () => {
      expect(verdict("good")).toEqual({
        rspamd: { spf: "pass", dkim: "pass", dmarc: "pass", policy: "reject" },
        pyspf: "pass",
        dkimpy: "pass",
        dmarc: { result: "pass", policy: "reject" },
      });
      const good = judged.find((judgement) => judgement.id === "good")!;
      expect(good.rspamd.symbols).toEqual(
        expect.arrayContaining(["R_SPF_ALLOW", "R_DKIM_ALLOW", "DMARC_POLICY_ALLOW"]),
      );
      expect(good.dkimpy.signatures).toEqual([
        { domain: DOMAIN, selector: SELECTOR, result: "pass", reason: "" },
      ]);
      expect(good.dmarc).toMatchObject({ spf: "pass", dkim: "pass", headerFrom: DOMAIN });
    });

    it("fails a message from another address whose signature broke, and DMARC says reject", () => {
      expect(verdict("bad")).toEqual({
        rspamd: { spf: "fail", dkim: "fail", dmarc: "fail", policy: "reject" },
        pyspf: "fail",
        dkimpy: "fail",
        dmarc: { result: "fail", policy: "reject" },
      });
      const bad = judged.find((judgement) => judgement.id === "bad")!;
      expect(bad.rspamd.symbols).toEqual(
        expect.arrayContaining(["R_SPF_FAIL", "R_DKIM_REJECT", "DMARC_POLICY_REJECT"]),
      );
      expect(bad.dkimpy.reason).toMatch(/body hash mismatch/);
    });

    it("gives pyspf's permerror for two SPF records, as envelope and as identity", async () => {
      const twoSpf = judged.find((judgement) => judgement.id === "two-spf")!;
      expect(twoSpf.pyspf).toEqual({
        result: "permerror",
        explanation: expect.stringMatching(/Two or more/),
      });
      // rspamd 3.4 takes the first record it gets (record order): not RFC 7208's permerror.
      expect(["pass", "fail"]).toContain(twoSpf.rspamd.spf);
      const identities = await pyspfIdentities(
        receivers().python,
        emulator().dns.port,
        [
          { domain: TWO_SPF, ip: ALLOWED_IP, helo: HELO },
          { domain: DOMAIN, ip: ALLOWED_IP, helo: HELO },
          { domain: DOMAIN, ip: OTHER_IP, helo: HELO },
        ],
        receivers().pythonPrefix,
      );
      expect(identities.map(({ result }) => result)).toEqual(["permerror", "pass", "fail"]);
    });

    it("asks the DNS again for every message: no receiver keeps a record from an earlier one", async () => {
      const zone = emulator().cloudflare;
      for (const name of [DOMAIN, `${SELECTOR}._domainkey.${DOMAIN}`])
        for (const record of zone.records("example.com", { name, type: "TXT" }))
          await zone.removeRecord("example.com", record.id);
      const other = await rsaKey();
      await zone.addRecord("example.com", {
        type: "TXT",
        name: DOMAIN,
        content: quoteTxt("v=spf1 ip4:192.0.2.99 -all"),
      });
      await zone.addRecord("example.com", {
        type: "TXT",
        name: `${SELECTOR}._domainkey.${DOMAIN}`,
        content: quoteTxt(dkimRecord(other.publicKey)),
      });
      const [again] = await judgeMessages(receivers(), [messages.find((entry) => entry.id === "good")!]);
      expect({
        rspamd: [again.rspamd.spf, again.rspamd.dkim, again.rspamd.dmarc],
        pyspf: again.pyspf.result,
        dkimpy: again.dkimpy.result,
        dmarc: again.dmarc.result,
      }).toEqual({ rspamd: ["fail", "fail", "fail"], pyspf: "fail", dkimpy: "fail", dmarc: "fail" });
    });

    // Last: the traces hold every message judged above.
    (strace.available ? it : it.skip)(
      `sends to nothing but the emulator's DNS${strace.available ? "" : ` — skipped: ${strace.reason}`}`,
      () => {
        const dns = `AF_INET 127.0.0.1:${emulator().dns.port}`;
        for (const [receiver, file] of Object.entries(traces)) {
          const sent = [...new Set(destinations(fs.readFileSync(file, "utf8")))].sort();
          // Sockets without a network address (rspamd's own, netlink) are no traffic.
          const network = sent.filter((destination) => !/^AF_(UNIX|LOCAL|NETLINK|UNSPEC)$/.test(destination));
          expect({ receiver, network }).toEqual({ receiver, network: [dns] });
        }
      },
    );
  },
);
