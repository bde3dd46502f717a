import { promises as dns } from "node:dns";
import { Domain } from "../../provider";
import { useEmulator } from "../support/emulator";
import { destroyRun, runProgram } from "../../testing";

/**
 * A Postal installation whose return-path prefix is not `psrp` (`dns.custom_return_path_prefix`):
 * before the service names the return path, the preflight looks where the installation puts it,
 * which stack config `emailDelivery:returnPathPrefix` says (Postal's `psrp` unless set). Found by
 * a review: the preflight always looked at `psrp.`.
 */

const emulator = useEmulator({ dns: { returnPathPrefix: "bounces" } });

beforeAll(() => dns.setServers([emulator().dns.address]));

/** A program of one Domain named `name` in the zone `zoneId`. */
function oneDomain(name: string, zoneId: string) {
  return () => {
    new Domain("mail", {
      name,
      cloudflare: { zoneId },
      verification: { timeoutSeconds: 30, pollIntervalSeconds: 1 },
    });
    return {};
  };
}

describe("an installation with another return-path prefix", () => {
  it("does not refuse an unrelated record at psrp.<name>: the service publishes nothing there", async () => {
    const zoneId = emulator().cloudflare.zones[0].id;
    const name = `prefix-${process.pid}.example.com`;
    // A host of the user's that happens to be called psrp (nothing of the service's goes there).
    await emulator().cloudflare.addRecord(zoneId, {
      name: `psrp.${name}`,
      type: "A",
      content: "192.0.2.44",
      ttl: 300,
      proxied: false,
    });
    const program = oneDomain(name, zoneId);
    // Unsaid, the preview refuses it, naming the setting.
    const unsaid = await runProgram(program, { mode: "preview", emulator: emulator(), timeoutMs: 10_000 });
    expect(unsaid.errors.map((error) => error.message).join("\n")).toContain(
      "set stack config emailDelivery:returnPathPrefix",
    );
    const config = { "emailDelivery:returnPathPrefix": "bounces" };
    const run = await runProgram(program, { mode: "live", emulator: emulator(), timeoutMs: 60_000, config });
    expect(run.errors.map((error) => error.message).join("\n")).toBe("");
    await destroyRun(run, { mode: "live", emulator: emulator(), config });
  });

  it("a record in the way found only once the service names the return path fails alone, in the Domain's words", async () => {
    const zoneId = emulator().cloudflare.zones[0].id;
    const name = `late-${process.pid}.example.com`;
    // Where this installation puts the return path, which the preflight, told nothing, does not look at.
    await emulator().cloudflare.addRecord(zoneId, {
      name: `bounces.${name}`,
      type: "CNAME",
      content: "bounces.elsewhere.example.net",
      ttl: 300,
      proxied: false,
    });
    const program = oneDomain(name, zoneId);
    const options = { mode: "live", emulator: emulator(), timeoutMs: 60_000 } as const;
    const run = await runProgram(program, options);
    // One error, as the preflight's are: not the record's input failing to serialize, and no
    // second one for the records waiting on it.
    expect([...new Set(run.errors.map((error) => error.message))]).toEqual([
      expect.stringMatching(/^Domain mail: 1 record conflicts with what the zone already holds:\n {2}- /),
    ]);
    expect(run.errors[0].message).toContain(
      `cloudflare.existingRecords.returnPath ("fail"): the zone already has a return-path record at ` +
        `bounces.${name} that this stack did not make: CNAME "bounces.elsewhere.example.net"`,
    );
    await destroyRun(run, options);
  });
});
