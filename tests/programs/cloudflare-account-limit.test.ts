import { Emulator, startEmulator } from "../../emulator";
import { Domain } from "../../provider";
import { destroyRun, runProgram } from "../../testing";

/**
 * Cloudflare's account-wide limit on the stand-in (a budget scaled down from 1,200 per 5 minutes):
 * a Domain's records are written in batches, so ten domains' fifty records fit a budget of 30;
 * and where the budget runs out (another stack of the account spent it), the package's client
 * waits out Cloudflare's `Retry-After` and goes on, so no 429 reaches the user and no record is
 * made twice. (Before, each record was one request, and every record past the budget failed with
 * Cloudflare's 971 once the Cloudflare provider's retries were spent.)
 */

const DOMAINS = 10;
const RECORDS_PER_DOMAIN = 5;

function program(zoneId: string) {
  return () => {
    for (let i = 0; i < DOMAINS; i++)
      new Domain(`mail-${i}`, { name: `mail-${i}.example.com`, cloudflare: { zoneId }, verification: false });
    return {};
  };
}

async function withLimit(
  limit: { requests: number; windowSeconds: number },
  test: (emulator: Emulator) => Promise<void>,
) {
  const emulator = await startEmulator({ zones: ["example.com"], cloudflareLimit: limit });
  try {
    await test(emulator);
  } finally {
    await emulator.stop();
  }
}

/** Every record the stand-in holds, each once. */
function expectEveryRecordOnce(emulator: Emulator) {
  const made = emulator.cloudflare.records(emulator.cloudflare.zones[0].id);
  expect(made).toHaveLength(DOMAINS * RECORDS_PER_DOMAIN);
  expect(new Set(made.map((r) => `${r.name} ${r.type} ${r.content}`)).size).toBe(made.length);
}

// About 10 requests on a quiet machine (2 reads, 7 or 8 batches); 40 leaves room for a busy one
// to split batches, and is still fewer than the 50 records.
it("ten domains' fifty records fit a budget of 40 requests: written in batches, none refused", async () => {
  await withLimit({ requests: 40, windowSeconds: 3600 }, async (emulator) => {
    const live = { mode: "live" as const, emulator, parallel: 8 };
    const up = await runProgram(program(emulator.cloudflare.zones[0].id), live);
    expect(up.errors).toEqual([]);
    const cloudflare = emulator.requests.all().filter((entry) => entry.service === "cloudflare");
    expect(cloudflare.filter((entry) => entry.fault === "rate-limit")).toEqual([]);
    expect(cloudflare.length).toBeLessThanOrEqual(40);
    expectEveryRecordOnce(emulator);

    const destroyed = await destroyRun(up, live);
    expect(destroyed.errors).toEqual([]);
    expect(emulator.cloudflare.records(emulator.cloudflare.zones[0].id)).toEqual([]);
  });
}, 120_000);

it("past the budget, the records' writes wait out Cloudflare's Retry-After: no 429 reaches the user, nothing is made twice", async () => {
  await withLimit({ requests: 1_000, windowSeconds: 3600 }, async (emulator) => {
    const zoneId = emulator.cloudflare.zones[0].id;
    // Another stack spends the account's budget just as the first record is registered: the
    // records' first requests are refused (429, Retry-After to the window's end, 5 s here).
    let spent = false;
    const spend = async () => {
      if (spent) return undefined;
      spent = true;
      emulator.cloudflareLimit.set({ requests: 1, windowSeconds: 5 });
      await fetch(`${emulator.cloudflare.url}/zones/${zoneId}/dns_records`, {
        headers: { authorization: `Bearer ${emulator.cloudflare.apiToken}` },
      });
      return undefined;
    };
    // Once a request was refused, the window is let go: the refused writes wait out the
    // Retry-After they were given, then go on.
    const refused = () => emulator.requests.all().some((entry) => entry.fault === "rate-limit");
    const lift = setInterval(() => {
      if (refused()) emulator.cloudflareLimit.set(undefined);
    }, 50);
    try {
      const up = await runProgram(program(zoneId), {
        mode: "live",
        emulator,
        parallel: 8,
        timeoutMs: 90_000,
        hooks: { newResource: (args) => (args.type.endsWith(":ClaimedDnsRecord") ? spend() : undefined) },
      });
      expect(up.errors).toEqual([]);
      expect(refused()).toBe(true);
      expectEveryRecordOnce(emulator);
    } finally {
      clearInterval(lift);
    }
  });
}, 120_000);
