import { startEmulator } from "../../emulator";
import { Domain } from "../../provider";
import { destroyRun, runProgram } from "../../testing";

/**
 * What a user sees today when one `up` sends more than Cloudflare's account-wide limit allows: the
 * stand-in under the limit (a budget scaled down from 1,200 per 5 minutes, with a window longer
 * than the test), the kit playing the Cloudflare provider's client as cloudflare-go v6 retries
 * (11 attempts, a `Retry-After` of a minute or more ignored for its own backoff, on a shorter
 * clock). Every record past the budget fails with Cloudflare's 971 once its retries are spent,
 * since the block outlasts them; nothing is made twice. Issue: records are one request each.
 */

const DOMAINS = 10;
const RECORDS_PER_DOMAIN = 5;
const BUDGET = 30;

it("a fresh up past the limit fails record by record with Cloudflare's 971, each record made once at most", async () => {
  const emulator = await startEmulator({
    zones: ["example.com"],
    cloudflareLimit: { requests: BUDGET, windowSeconds: 3600 },
  });
  try {
    const zoneId = emulator.cloudflare.zones[0].id;
    const program = () => {
      for (let i = 0; i < DOMAINS; i++)
        new Domain(`mail-${i}`, {
          name: `mail-${i}.example.com`,
          cloudflare: { zoneId },
          verification: false,
        });
      return {};
    };
    const live = { mode: "live" as const, emulator };
    const up = await runProgram(program, live);

    const cloudflare = emulator.requests.all().filter((entry) => entry.service === "cloudflare");
    const admitted = cloudflare.filter((entry) => entry.fault !== "rate-limit");
    expect(admitted).toHaveLength(BUDGET);
    expect(cloudflare.length).toBeGreaterThan(BUDGET);
    // The records that got through, each once: a refused create did nothing.
    const made = emulator.cloudflare.records(zoneId);
    expect(made.length).toBeLessThan(DOMAINS * RECORDS_PER_DOMAIN);
    expect(new Set(made.map((r) => `${r.name} ${r.type} ${r.content}`)).size).toBe(made.length);
    // What the user sees: the records (or the zone reads) past the budget fail with Cloudflare's words.
    expect(up.errors.length).toBeGreaterThan(0);
    for (const error of up.errors)
      expect(error.message).toMatch(/429|971|Please wait and consider throttling/);

    emulator.cloudflareLimit.set(undefined);
    const destroyed = await destroyRun(up, live);
    expect(destroyed.errors).toEqual([]);
    expect(emulator.cloudflare.records(zoneId)).toEqual([]);
  } finally {
    await emulator.stop();
  }
}, 120_000);
