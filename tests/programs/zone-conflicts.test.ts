import { promises as dns } from "node:dns";
import type * as pulumi from "@pulumi/pulumi";
import { Domain, DomainArgs, DomainCloudflareArgs } from "../../provider";
import { quoteTxt } from "../../provider/dns";
import {
  conflictsMessage,
  RunChecks,
  ZoneConflict,
} from "../../provider/resources/publishing/zone-conflicts";
import { zoneRecordsApi } from "../support/cloudflare";
import { useEmulator } from "../support/emulator";
import { ProgramRun, runProgram, RunOptions } from "../../testing";

/**
 * Every conflict between a program's `Domain`s and what their zone holds, in one preview (and one
 * failed `up` that makes nothing): each Domain's conflicts in one error, one line each, and every
 * Domain's error in the same run. The zone is `office.example`, whose apex has the records an
 * office that already sends and receives mail has: Microsoft 365's SPF record and Google's MX
 * records (the case reported: the preview named the SPF record only; MX came once SPF was settled).
 */

const APEX = "office.example";
const OFFICE_SPF = "v=spf1 include:spf.protection.outlook.com -all";
const GOOGLE_MX = [
  ["aspmx.l.google.com", 1],
  ["alt1.aspmx.l.google.com", 5],
  ["alt2.aspmx.l.google.com", 5],
  ["alt3.aspmx.l.google.com", 10],
  ["alt4.aspmx.l.google.com", 10],
] as const;
const SERVICE_DOMAIN = "email-delivery:Domain";

const emulator = useEmulator({ zones: [APEX] });
let zoneId: string;

const userRecord = (fields: Record<string, unknown>) =>
  zoneRecordsApi(emulator(), "POST", "", { ttl: 3600, proxied: false, ...fields });

beforeAll(async () => {
  zoneId = emulator().cloudflare.zones[0].id;
  // SPF lookups (the merge's count) resolve through the emulator's DNS server, never elsewhere.
  dns.setServers([emulator().dns.address]);
  await userRecord({ name: APEX, type: "TXT", content: quoteTxt(OFFICE_SPF), comment: "office 365" });
  for (const [content, priority] of GOOGLE_MX)
    await userRecord({ name: APEX, type: "MX", content, priority });
});

const preview = (): RunOptions => ({ mode: "preview", emulator: emulator(), timeoutMs: 10_000 });
const live = (): RunOptions => ({ mode: "live", emulator: emulator(), timeoutMs: 60_000 });
/** The run's errors, each once, but the outputs the failure left unresolved. */
const messages = (run: ProgramRun<string>) => [
  ...new Set(run.errors.filter((error) => error.source !== "output").map((error) => error.message)),
];
/** The one error that names Domain `name`. */
function errorOf(run: ProgramRun<string>, name: string): string {
  const found = messages(run).filter((message) => message.startsWith(`Domain ${name}: `));
  expect(found).toHaveLength(1);
  return found[0];
}
/** What the run sent the email service and Cloudflare besides reads. */
const writes = () =>
  emulator()
    .requests.all()
    .filter((entry) => !entry.endpoint.endsWith(".list") && !entry.endpoint.endsWith(".get"));

type Args = Pick<DomainArgs, "name" | "dmarc"> & Pick<DomainCloudflareArgs, "existingRecords">;

/** Domains named by their resource names, publishing in the zone. */
function program(domains: Record<string, Args>) {
  return () => {
    const outputs: Record<string, unknown> = {};
    for (const [resourceName, { existingRecords, ...args }] of Object.entries(domains)) {
      const domain = new Domain(resourceName, {
        ...args,
        cloudflare: { zoneId, existingRecords },
        verification: { timeoutSeconds: 30, pollIntervalSeconds: 1 },
      });
      outputs[resourceName] = domain.verified;
    }
    return outputs;
  };
}

describe("the report (zone-conflicts.ts)", () => {
  const spf: ZoneConflict = {
    planned: { purpose: "spf", name: "example.com", type: "TXT" },
    policy: "fail",
    problem: "the zone already has an SPF record at example.com …",
  };
  const mx: ZoneConflict = {
    planned: { purpose: "mx", name: "example.com", type: "MX" },
    policy: "fail",
    problem: "the zone already has MX records at example.com …",
  };
  const returnPath: ZoneConflict = {
    planned: { purpose: "return_path", name: "psrp.example.com", type: "CNAME" },
    policy: "overwrite",
    problem: "the zone has 2 records at psrp.example.com …",
  };
  /** A Domain component as the error names it (nothing here reads it). */
  const domain = (name: string) => ({ name }) as unknown as pulumi.Resource;
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it("says how many, then a line each, starting with the property that decides it", () => {
    expect(conflictsMessage("mail", [spf, mx, returnPath])).toBe(
      "Domain mail: 3 records conflict with what the zone already holds:\n" +
        '  - cloudflare.existingRecords.spf ("fail"): the zone already has an SPF record at example.com …\n' +
        '  - cloudflare.existingRecords.mx ("fail"): the zone already has MX records at example.com …\n' +
        '  - cloudflare.existingRecords.returnPath ("overwrite"): the zone has 2 records at psrp.example.com …',
    );
    expect(conflictsMessage("mail", [spf])).toMatch(/^Domain mail: 1 record conflicts with what the zone/);
  });

  it("throws a Domain's conflicts once every check under way has ended, each Domain's in one error", async () => {
    const checks = new RunChecks();
    let finishOther!: (conflicts: ZoneConflict[]) => void;
    const other = new Promise<ZoneConflict[]>((resolve) => (finishOther = resolve));
    const first = checks.report("first", domain("first"), async () => [spf]);
    const again = checks.report("first", domain("first"), async () => []);
    const second = checks.report("second", domain("second"), () => other);
    let firstDone = false;
    void first.catch(() => (firstDone = true));
    await turns(5);
    // The first Domain's check has ended; the second's is under way: nothing is reported yet.
    expect(firstDone).toBe(false);
    await expect(again).resolves.toBeUndefined();
    finishOther([mx, returnPath]);
    const [a, b] = await Promise.all([first.catch((e: unknown) => e), second.catch((e: unknown) => e)]);
    expect((a as Error).message).toBe(conflictsMessage("first", [spf]));
    expect((b as Error).message).toBe(conflictsMessage("second", [mx, returnPath]));
    // The language host prints the message alone (no stack) for a ResourceError that hides it.
    expect((a as pulumi.ResourceError).hideStack).toBe(true);
  });

  it("gives every check of one Domain that ended together the same error, naming all their conflicts", async () => {
    const checks = new RunChecks();
    const mail = domain("mail");
    const errors = await Promise.all(
      [[spf], [], [mx]].map((found) =>
        checks.report("mail", mail, async () => found).catch((e: unknown) => e),
      ),
    );
    expect(errors[0]).toBe(errors[2]);
    expect(errors[1]).toBeUndefined();
    expect((errors[0] as Error).message).toBe(conflictsMessage("mail", [spf, mx]));
    // Reported: a later check of the Domain reports on its own.
    await expect(checks.report("mail", mail, async () => [returnPath])).rejects.toThrow(
      conflictsMessage("mail", [returnPath]),
    );
  });

  it("holds a check's own failure (a zone that could not be read) until the others have ended", async () => {
    const checks = new RunChecks();
    let finishOther!: () => void;
    const failed = checks.report("mail", domain("mail"), async () => {
      throw new Error("the read of zone z failed");
    });
    const other = checks.report(
      "other",
      domain("other"),
      () => new Promise<ZoneConflict[]>((resolve) => (finishOther = () => resolve([]))),
    );
    let failedDone = false;
    void failed.catch(() => (failedDone = true));
    await turns(5);
    expect(failedDone).toBe(false);
    finishOther();
    await expect(failed).rejects.toThrow("the read of zone z failed");
    await expect(other).resolves.toBeUndefined();
  });
});

/** The reported case: a Domain at the apex, default policies. */
const atTheApex = program({ mail: { name: APEX } });

function expectApexConflicts(error: string) {
  expect(error).toMatch(/^Domain mail: 2 records/);
  expect(error).toContain(
    `\n  - cloudflare.existingRecords.spf ("fail"): the zone already has an SPF record at ${APEX} that this ` +
      `stack did not make: TXT "${OFFICE_SPF}"`,
  );
  expect(error).toContain('comment "office 365"');
  expect(error).toContain(
    `\n  - cloudflare.existingRecords.mx ("fail"): the zone already has MX records at ${APEX} that this stack ` +
      "did not make: ",
  );
  for (const [content, priority] of GOOGLE_MX) expect(error).toContain(`MX ${priority} "${content}"`);
  // One line per conflict, after the line that says how many.
  expect(error.split("\n")).toHaveLength(3);
}

describe("the reported case: Microsoft's SPF record and Google's MX records at the apex", () => {
  it("one preview names both, in one error for the Domain, and writes nothing", async () => {
    emulator().requests.clear();
    const run = await runProgram(atTheApex, preview());
    expect(messages(run)).toHaveLength(1);
    expectApexConflicts(errorOf(run, "mail"));
    expect(writes()).toEqual([]);
    expect(run.ofType(SERVICE_DOMAIN).every((r) => r.status !== "created")).toBe(true);
  });

  it("an `up` names both and creates nothing on the service or in the zone", async () => {
    emulator().requests.clear();
    const run = await runProgram(atTheApex, live());
    expectApexConflicts(errorOf(run, "mail"));
    expect(writes()).toEqual([]);
    expect(emulator().state.domains.some((domain) => domain.name === APEX)).toBe(false);
  });
});

describe("several Domains in one zone, each with conflicts", () => {
  const news = `news.${APEX}`;
  const bulk = `bulk.${APEX}`;
  beforeAll(async () => {
    // news: another stage's DMARC record and a bounce host's CNAME where the return path goes.
    await userRecord({
      name: `_dmarc.${news}`,
      type: "TXT",
      content: quoteTxt("v=DMARC1; p=none"),
      comment: "pulumi email-delivery/staging: email dmarc",
    });
    await userRecord({ name: `psrp.${news}`, type: "CNAME", content: "bounces.elsewhere.example.net" });
    // bulk: an SPF record already at the 10-lookup limit (counted through DNS, so found after the
    // others' conflicts), to merge into, and an MX record of its own.
    for (let i = 0; i < 10; i++)
      await userRecord({ name: `s${i}.${bulk}`, type: "TXT", content: quoteTxt("v=spf1 -all") });
    const includes = Array.from({ length: 10 }, (_, i) => `include:s${i}.${bulk}`).join(" ");
    await userRecord({ name: bulk, type: "TXT", content: quoteTxt(`v=spf1 ${includes} -all`) });
    await userRecord({ name: bulk, type: "MX", content: "mx.elsewhere.example.net", priority: 10 });
  });

  const three = program({
    mail: { name: APEX },
    news: { name: news, dmarc: { policy: "quarantine" } },
    bulk: { name: bulk, existingRecords: { spf: "merge" } },
  });

  function expectAll(run: ProgramRun<string>) {
    expectApexConflicts(errorOf(run, "mail"));

    const newsError = errorOf(run, "news");
    expect(newsError).toMatch(/^Domain news: 2 records/);
    expect(newsError).toContain(
      `\n  - cloudflare.existingRecords.returnPath ("fail"): the zone already has a return-path record at ` +
        `psrp.${news} that this stack did not make: CNAME "bounces.elsewhere.example.net"`,
    );
    expect(newsError).toContain(
      `\n  - cloudflare.existingRecords.dmarc ("fail"): the zone already has a DMARC record at _dmarc.${news} ` +
        'that this stack did not make: TXT "v=DMARC1; p=none"',
    );
    expect(newsError).toContain("made by stack email-delivery/staging");

    const bulkError = errorOf(run, "bulk");
    expect(bulkError).toMatch(/^Domain bulk: 2 records/);
    expect(bulkError).toContain(
      `\n  - cloudflare.existingRecords.spf ("merge"): cannot merge into the SPF record at ${bulk}: it already ` +
        "needs 10 DNS lookups, and the service's include makes 11",
    );
    expect(bulkError).toContain(
      `\n  - cloudflare.existingRecords.mx ("fail"): the zone already has MX records at ${bulk}`,
    );
    expect(messages(run)).toHaveLength(3);
  }

  it("one preview names every Domain's, each Domain's in one error", async () => {
    emulator().requests.clear();
    const run = await runProgram(three, preview());
    expectAll(run);
    expect(writes()).toEqual([]);
  });

  it("an `up` names every Domain's and creates nothing", async () => {
    emulator().requests.clear();
    const run = await runProgram(three, live());
    expectAll(run);
    expect(writes()).toEqual([]);
    expect(emulator().state.domains).toEqual([]);
  });
});

describe("a Domain's records that are clear, while another of its records conflicts", () => {
  it("are not written by an `up` (its DMARC record, known before the domain, waited for nothing)", async () => {
    const quiet = `quiet.${APEX}`;
    await userRecord({ name: `psrp.${quiet}`, type: "CNAME", content: "bounces.elsewhere.example.net" });
    emulator().requests.clear();
    const run = await runProgram(program({ quiet: { name: quiet, dmarc: { policy: "none" } } }), live());
    expect(errorOf(run, "quiet")).toContain(
      `a return-path record at psrp.${quiet} that this stack did not make`,
    );
    expect(messages(run)).toHaveLength(1);
    expect(writes()).toEqual([]);
  });
});
