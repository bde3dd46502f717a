import { promises as dns } from "node:dns";
import { Domain, DomainArgs } from "../../provider";
import { quoteTxt } from "../../provider/dns";
import { useEmulator } from "../support/emulator";
import { publishGoogleSpf, ZONES_WITH_GOOGLE } from "../support/service-spf";
import { destroyRun, runProgram, RunOptions } from "../../testing";

/**
 * A `Domain` that claims every record it publishes (merge, overwrite, adopt, add) while the
 * Cloudflare stand-in refuses, drops, or makes writes and reads and loses their answers: nothing
 * may be made twice, and a destroy under the same faults gives back every record of the user's.
 * The claimed records' client waits between retries in real time (0.25, 0.5, 1 s…).
 */

const emulator = useEmulator({ zones: ZONES_WITH_GOOGLE });
let zoneId: string;
const name = `hfault-${process.pid}.example.com`;

beforeAll(async () => {
  zoneId = emulator().cloudflare.zones[0].id;
  dns.setServers([emulator().dns.address]);
  await publishGoogleSpf(emulator());
});

function domainProgram(args: Partial<DomainArgs>) {
  return () => {
    const domain = new Domain("mail", {
      name,
      ...args,
      cloudflare: { zoneId, ...args.cloudflare },
      verification: { timeoutSeconds: 60, pollIntervalSeconds: 1 },
    });
    return { verified: domain.verified };
  };
}
const live = (): RunOptions => ({ mode: "live", emulator: emulator(), timeoutMs: 60_000 });

describe("a busy Cloudflare: writes refused, dropped, or made with their answers lost", () => {
  afterEach(() => emulator().faults.set([]));

  it("claims every record once, verifies, and a destroy under the same faults gives every record back", async () => {
    const spf = quoteTxt("v=spf1 include:_spf.google.com ~all");
    await emulator().cloudflare.addRecord(zoneId, {
      name,
      type: "TXT",
      content: spf,
      ttl: 3600,
      comment: "office",
    });
    await emulator().cloudflare.addRecord(zoneId, {
      name,
      type: "MX",
      content: "aspmx.l.google.com",
      priority: 1,
      ttl: 3600,
    });
    await emulator().cloudflare.addRecord(zoneId, {
      name: `psrp.${name}`,
      type: "CNAME",
      content: "bounces.elsewhere.example.net",
      ttl: 3600,
    });
    const before = () =>
      emulator()
        .cloudflare.records(zoneId)
        .filter((r) => r.name.endsWith(name))
        .map((r) => `${r.name} ${r.type} ${r.content} ${r.ttl} ${String(r.comment)}`)
        .sort();
    const userRecords = before();
    emulator().faults.set(
      [
        {
          endpoints:
            "cloudflare:dns_records.create,cloudflare:dns_records.update,cloudflare:dns_records.delete,cloudflare:dns_records.get",
          dropRate: 0.1,
          rate429: 0.1,
          retryAfterSeconds: 0,
          commitThenDropRate: 0.3,
        },
      ],
      7,
    );
    const options = { ...live(), timeoutMs: 120_000 };
    const run = await runProgram(
      domainProgram({
        cloudflare: {
          zoneId,
          existingRecords: { spf: "merge", returnPath: "overwrite", dkim: "adopt", mx: "add" },
        },
      }),
      options,
    );
    expect(run.errors).toEqual([]);
    expect(run.outputs).toEqual({ verified: true });
    const published = before();
    expect(new Set(published).size).toBe(published.length);
    expect(published.filter((r) => r.includes(" MX ")).length).toBe(3);
    const destroyed = await destroyRun(run, options);
    expect(destroyed.errors).toEqual([]);
    emulator().faults.set([]);
    expect(before()).toEqual(userRecords);
  }, 180_000);
});
