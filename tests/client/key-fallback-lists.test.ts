import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";

/**
 * Lists are shared per service and key, and a write is applied to every list of the process it
 * changes (write-through). A write that switches to the fallback key on its way (the service
 * refused the configured one) changes what the fallback key lists: those lists must show it too.
 */
describe("a write that switched to the fallback key", () => {
  const emulator = useEmulator();

  it("is applied to the lists of the key it switched to", async () => {
    const rotated = emulator().emailApi.apiKey;
    // A client already on the new key, holding a reusable list of the domains.
    const current = clientFor(emulator());
    const reuse = { maxAgeMs: 60_000 };
    const before = await current.listDomains(reuse);

    // A client configured with the old key: its first request is refused, then it uses the new one.
    const stale = clientFor(emulator(), { apiKey: "RevokedKey00000000000001", fallbackApiKey: rotated });
    const name = uniqueDomain("fallback-write");
    const { domain } = await stale.createDomain(name);
    expect(before.some((candidate) => candidate.id === domain.id)).toBe(false);

    emulator().requests.clear();
    const after = await current.listDomains(reuse);
    expect(after.some((candidate) => candidate.id === domain.id)).toBe(true);
    expect(emulator().requests.count("domains/list")).toBe(0);
  });
});
