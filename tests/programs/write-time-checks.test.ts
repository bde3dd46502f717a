import { Domain } from "../../provider";
import { quoteTxt, unquoteTxt } from "../../provider/dns";
import { useEmulator } from "../support/emulator";
import { CLAIMED_RECORD_TYPE, runProgram, RunOptions, unchangedFrom } from "../../testing";

/**
 * A record checked against the zone as it is when it is written, not as the run's first read found
 * it (zone-reads.ts `confirmedAt`): a colleague's SPF record added after the program read the zone
 * and before the new domain's records are written (the service names them only once it has made
 * the domain, minutes later in a big stack) is refused under the default "fail" policy, naming it,
 * and never doubled. The record is added while the service handles `domains/create`: after the
 * first read, before the write, every time.
 */

const emulator = useEmulator();
let counter = 0;
const freshName = () => `late${++counter}-${process.pid}.example.com`;
const live = (): RunOptions => ({ mode: "live", emulator: emulator(), timeoutMs: 60_000 });
const COLLEAGUE = "v=spf1 include:_spf.google.com ~all";

/** Runs `domains/create`'s handling after `meanwhile` (the emulator's in-process hold). */
function whileTheDomainIsMade(meanwhile: () => Promise<unknown>): () => void {
  const faults = emulator().faults;
  const decide = faults.decide.bind(faults);
  faults.decide = (endpoint) => {
    const decision = decide(endpoint);
    return endpoint === "domains/create" ? { ...decision, hold: meanwhile() } : decision;
  };
  return () => {
    faults.decide = decide;
  };
}

const spfRecordsAt = (zoneId: string, name: string) =>
  emulator()
    .cloudflare.records(zoneId, { name })
    .filter((record) => record.type === "TXT")
    .map((record) => unquoteTxt(record.content))
    .filter((text) => text.startsWith("v=spf1"));

it("an SPF record someone added after the zone was read is refused at the write, naming it; no second one is written", async () => {
  const name = freshName();
  const zoneId = emulator().cloudflare.zones[0].id;
  const restore = whileTheDomainIsMade(() =>
    emulator().cloudflare.addRecord(zoneId, { name, type: "TXT", content: quoteTxt(COLLEAGUE), ttl: 300 }),
  );
  try {
    const run = await runProgram(() => {
      new Domain("mail", { name, cloudflare: { zoneId }, verification: false });
      return {};
    }, live());
    const messages = run.errors.map((error) => error.message).join("\n");
    // The record's own check, just before it is written (in the provider, against the zone as a
    // read of the last few seconds found it): the record, the policy's choices, nothing changed.
    expect(messages).toContain(
      `TXT record ${name}: the zone already has an SPF record at ${name} that this stack did not make`,
    );
    expect(messages).toContain("Nothing was changed in the zone.");
    expect(messages).toContain(COLLEAGUE);
    // The colleague's record alone: never two SPF records at the name.
    expect(spfRecordsAt(zoneId, name)).toEqual([COLLEAGUE]);
    expect(
      run.ofType(CLAIMED_RECORD_TYPE).filter((r) => r.name === "mail-spf" && r.status === "created"),
    ).toEqual([]);
  } finally {
    restore();
  }
});

it("costs no read per new domain: the records' provider checks them against one read of the zone for all", async () => {
  const name = freshName();
  const zoneId = emulator().cloudflare.zones[0].id;
  const reads = () => emulator().requests.count("cloudflare:dns_records.list");
  const program = () => {
    new Domain("mail", { name, cloudflare: { zoneId }, verification: false });
    return {};
  };
  let before = reads();
  const first = await runProgram(program, live());
  expect(first.errors).toEqual([]);
  const fresh = reads() - before;
  expect(spfRecordsAt(zoneId, name)).toHaveLength(1);

  // `pulumi up` with nothing changed: the records are the stack's and nothing is written, so
  // there is no read before writing. Both runs read the zone whole alike (it holds under a page).
  before = reads();
  const again = await runProgram(program, { ...live(), hooks: { newResource: unchangedFrom(first) } });
  expect(again.errors).toEqual([]);
  const unchanged = reads() - before;
  // The records' provider reads the zone whole once for the creates of the command (zone-view.ts),
  // where the program once read each new domain's names again: one whole read more, not one a domain.
  expect(fresh - unchanged).toBe(1);
  expect(emulator().requests.count("cloudflare:dns_records.batch")).toBeGreaterThan(0);
});
