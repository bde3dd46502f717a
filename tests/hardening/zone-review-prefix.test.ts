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
    const program = () => {
      new Domain("mail", {
        name,
        cloudflare: { zoneId },
        verification: { timeoutSeconds: 30, pollIntervalSeconds: 1 },
      });
      return {};
    };
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
});
