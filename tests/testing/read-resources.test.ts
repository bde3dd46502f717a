import * as cloudflare from "@pulumi/cloudflare";
import { publishRecords } from "../support/cloudflare";
import { useEmulator } from "../support/emulator";
import { destroyRun, DNS_RECORD_TYPE, runProgram, RunMode } from "../../testing";

/**
 * A program that reads a record the zone already has (`cloudflare.DnsRecord.get(name, id, {
 * zoneId })`, e.g. to reuse its content): the engine reads it through the provider, in previews too,
 * and never creates or deletes it (`pulumi destroy` leaves read resources alone).
 */

const emulator = useEmulator();

function records() {
  return emulator().state.cloudflare.records.map((r) => `${r.id} ${r.type} ${r.name} ${r.content}`);
}

describe.each<RunMode>(["preview", "live"])("cloudflare.DnsRecord.get in a %s run", (mode) => {
  it("reads the record from the stand-in, creates nothing, and destroyRun leaves it", async () => {
    const zoneId = emulator().cloudflare.zones[0].id;
    const name = `existing-${mode}.example.com`;
    const [id] = await publishRecords(emulator(), [
      { purpose: "spf", type: "TXT", name, content: "v=spf1 -all" },
    ]);
    const before = records();

    const run = await runProgram(
      () => {
        const record = cloudflare.DnsRecord.get("existing", id, { zoneId });
        return { id: record.id, content: record.content, name: record.name, ttl: record.ttl };
      },
      { mode, emulator: emulator() },
    );

    expect(run.errors).toEqual([]);
    expect(run.outputs).toEqual({ id, content: '"v=spf1 -all"', name, ttl: 300 });
    expect(run.get(DNS_RECORD_TYPE, "existing")).toMatchObject({ id, read: true, status: "created" });
    expect(records()).toEqual(before);

    const destroyed = await destroyRun(run, { mode: "live", emulator: emulator() });
    expect(destroyed).toEqual({ deleted: [], errors: [] });
    expect(records()).toEqual(before);
  });
});

it("a record that is not in the zone fails the read, naming it, and nothing is written", async () => {
  const zoneId = emulator().cloudflare.zones[0].id;
  const writes = () =>
    emulator()
      .requests.all()
      .filter((r) => r.method !== "GET").length;
  const writesBefore = writes();
  const run = await runProgram(
    () => ({
      content: cloudflare.DnsRecord.get("gone", "0123456789abcdef0123456789abcdef", { zoneId }).content,
    }),
    { mode: "live", emulator: emulator() },
  );
  expect(run.errors.map((e) => e.message).join("\n")).toMatch(/gone.*0123456789abcdef0123456789abcdef.*404/s);
  expect(writes()).toBe(writesBefore);
});
