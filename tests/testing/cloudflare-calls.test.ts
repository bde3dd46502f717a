import * as cloudflare from "@pulumi/cloudflare";
import { useEmulator } from "../support/emulator";
import { destroyRun, runProgram } from "../../testing";

/**
 * The kit's calls to the Cloudflare stand-in, as the Cloudflare provider makes them: retried on a
 * dropped connection, 408, 409, 429 and 5xx (the provider's API client does, so a program under
 * `emulator.faults` copes as it would with the real provider), an answer that is not JSON named as
 * such, and `getDnsRecords`' arguments sent under the API's names (`tagMatch` → `tag_match`).
 */

const emulator = useEmulator();
afterEach(() => emulator().faults.set([]));

function recordProgram(name: string) {
  return () => {
    const record = new cloudflare.DnsRecord("r", {
      zoneId: emulator().cloudflare.zones[0].id,
      name,
      type: "TXT",
      content: '"retried"',
      ttl: 300,
    });
    return { id: record.id };
  };
}

const held = (name: string) => emulator().state.cloudflare.records.filter((r) => r.name === name).length;

it("a record's create and delete go through 503s, 429s and dropped connections, made and deleted once", async () => {
  const name = `retried-${process.pid}.example.com`;
  emulator().faults.set([
    { endpoints: "cloudflare:dns_records.*", rate503: 1, times: 1 },
    { endpoints: "cloudflare:dns_records.*", rate429: 1, retryAfterSeconds: 0, times: 1 },
    { endpoints: "cloudflare:dns_records.*", dropRate: 1, times: 1 },
  ]);
  const run = await runProgram(recordProgram(name), { mode: "live", emulator: emulator() });
  expect(run.errors).toEqual([]);
  expect(held(name)).toBe(1);

  emulator().faults.set([
    { endpoints: "cloudflare:dns_records.*", rate503: 1, times: 1 },
    { endpoints: "cloudflare:dns_records.*", dropRate: 1, times: 1 },
  ]);
  const destroyed = await destroyRun(run, { mode: "live", emulator: emulator() });
  expect(destroyed.errors).toEqual([]);
  expect(held(name)).toBe(0);
});

it("getDnsRecords sends tagMatch as the API's tag_match: any of two tag conditions", async () => {
  const { url, apiToken, zones } = emulator().cloudflare;
  const zoneId = zones[0].id;
  const prefix = `tagged-${process.pid}`;
  for (const [label, tags] of [
    ["a", ["team:a"]],
    ["b", ["owner:b"]],
    ["none", []],
  ] as const) {
    const answer = await fetch(`${url}/zones/${zoneId}/dns_records`, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ type: "TXT", name: `${prefix}-${label}.example.com`, content: '"x"', tags }),
    });
    expect(answer.status).toBe(200);
  }
  const run = await runProgram(
    () => {
      const found = cloudflare.getDnsRecordsOutput({
        zoneId,
        name: { startswith: prefix },
        tag: { present: "team", absent: "owner" },
        tagMatch: "any",
      });
      return { names: found.results.apply((results) => results.map((r) => r.name).sort()) };
    },
    { mode: "live", emulator: emulator() },
  );
  expect(run.errors).toEqual([]);
  // tag_match=all (the default, and what an ignored tagMatch gives) would find only "a".
  expect(run.outputs).toEqual({
    names: [`${prefix}-a.example.com`, `${prefix}-none.example.com`],
  });
});

it("a proxied record with a TTL other than 1 fails before any request, as the provider refuses it", async () => {
  const name = `proxied-${process.pid}.example.com`;
  const posts = () => emulator().requests.count("cloudflare:dns_records.create");
  const before = posts();
  const run = await runProgram(
    () => {
      const record = new cloudflare.DnsRecord("r", {
        zoneId: emulator().cloudflare.zones[0].id,
        name,
        type: "A",
        content: "192.0.2.1",
        proxied: true,
        ttl: 300,
      });
      return { id: record.id };
    },
    { mode: "live", emulator: emulator() },
  );
  expect(run.errors.map((e) => e.message).join("\n")).toContain(
    "ttl must be set to 1 when `proxied` is true",
  );
  expect(posts()).toBe(before);
  expect(held(name)).toBe(0);
});

it("getDnsRecords with maxItems 0 reads up to 1,000, as the provider does", async () => {
  const { url, apiToken, zones } = emulator().cloudflare;
  const zoneId = zones[0].id;
  const prefix = `many-${process.pid}`;
  for (let i = 0; i < 101; i++) {
    const answer = await fetch(`${url}/zones/${zoneId}/dns_records`, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ type: "TXT", name: `${prefix}-${i}.example.com`, content: '"x"', ttl: 1 }),
    });
    expect(answer.status).toBe(200);
  }
  const run = await runProgram(
    () => {
      const found = cloudflare.getDnsRecordsOutput({ zoneId, name: { startswith: prefix }, maxItems: 0 });
      return { count: found.results.apply((results) => results.length) };
    },
    { mode: "live", emulator: emulator() },
  );
  expect(run.errors).toEqual([]);
  expect(run.outputs).toEqual({ count: 101 });
});

it("waits between the Cloudflare provider's retries on Node's own timers, not a test's fake clock", async () => {
  const name = `fake-clock-${process.pid}.example.com`;
  emulator().faults.set([{ endpoints: "cloudflare:dns_records.create", rate503: 1, times: 1 }]);
  jest.useFakeTimers();
  try {
    const run = await runProgram(recordProgram(name), {
      mode: "live",
      emulator: emulator(),
      timeoutMs: 20_000, // the kit's own limit, on Node's timers: what ends the run if the retry never comes
    });
    expect(run.errors).toEqual([]);
  } finally {
    jest.useRealTimers();
  }
  expect(
    emulator()
      .requests.all()
      .filter((entry) => entry.endpoint === "cloudflare:dns_records.create")
      .map((entry) => entry.status)
      .slice(-2),
  ).toEqual([503, 200]);
  expect(held(name)).toBe(1);
}, 30_000);
