import { startEmulator } from "../../emulator";

/**
 * `stop()` is called from more than one place in practice (a test's `afterAll` and a `finally`,
 * a Ctrl-C handler and the end of a script): a second call, sequential or concurrent, must
 * resolve like the first instead of failing on the DNS server's already closed socket.
 */
describe("Emulator.stop()", () => {
  it("resolves when called again after it has stopped", async () => {
    const emulator = await startEmulator();
    await emulator.stop();
    await expect(emulator.stop()).resolves.toBeUndefined();
  });

  it("resolves for every one of concurrent calls, and the ports are closed after", async () => {
    const emulator = await startEmulator();
    await expect(Promise.all([emulator.stop(), emulator.stop()])).resolves.toEqual([undefined, undefined]);
    await expect(fetch(`${emulator.emailApi.url}/api/v1/domains/list`, { method: "POST" })).rejects.toThrow();
  });
});
