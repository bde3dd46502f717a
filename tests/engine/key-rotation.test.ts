import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import { isHostCallError, rpcSecret, startProviderHost, urnFor } from "../support/provider-host";
import { loaderTexts } from "../support/providers";

/**
 * A key rotated with `pulumi config set`: `pulumi refresh` and `pulumi destroy` configure the
 * provider from the stack config saved at the last `pulumi up`, so the real host is configured
 * here with the old key, as the engine would, after the service stopped accepting it.
 */
describe("a rotated API key, for refresh and destroy", () => {
  const emulator = useEmulator();
  const NEW_KEY = "RotatedKey00000000000042";
  const urn = urnFor("emailDelivery:Domain", "main");

  /** Makes the service accept NEW_KEY instead of the key it was started with, for `run`. */
  async function withRotatedKey(run: (oldKey: string) => Promise<void>): Promise<void> {
    const oldKey = emulator().emailApi.apiKey;
    const credential = emulator().state.credentials.find((c) => c.type === "API" && c.key === oldKey)!;
    credential.key = NEW_KEY;
    try {
      await run(oldKey);
    } finally {
      credential.key = oldKey;
    }
  }

  async function hostWith(oldKey: string, env: Record<string, string> = {}) {
    const host = await startProviderHost({ env });
    await host.configure({
      "emailDelivery:baseUrl": emulator().emailApi.url,
      "emailDelivery:apiKey": rpcSecret(oldKey),
    });
    return host;
  }

  it("reads and deletes with EMAIL_DELIVERY_ROTATED_API_KEY when the saved key is refused", async () => {
    const { domain } = await clientFor(emulator()).createDomain(uniqueDomain("rotated"));
    const state = { name: domain.name, adopt: false, domainId: domain.id, __provider: loaderTexts().domain };
    await withRotatedKey(async (oldKey) => {
      const host = await hostWith(oldKey, { EMAIL_DELIVERY_ROTATED_API_KEY: NEW_KEY });
      try {
        const read = await host.read(String(domain.id), urn, state);
        expect(read.id).toBe(String(domain.id));
        await host.delete(String(domain.id), urn, state);
        expect(emulator().state.domains.some((d) => d.id === domain.id)).toBe(false);
        expect(host.output()).not.toContain(NEW_KEY);
        expect(host.output()).not.toContain(oldKey);
      } finally {
        await host.stop();
      }
    });
  });

  it("without it, fails naming the ways forward, never the keys, and drops nothing", async () => {
    const { domain } = await clientFor(emulator()).createDomain(uniqueDomain("rotated"));
    const state = { name: domain.name, adopt: false, domainId: domain.id, __provider: loaderTexts().domain };
    await withRotatedKey(async (oldKey) => {
      const host = await hostWith(oldKey);
      try {
        const error = await host.read(String(domain.id), urn, state).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (!isHostCallError(error)) throw new Error(`expected a failed read, got ${String(error)}`);
        expect(error.details).toContain("(auth)");
        expect(error.details).toContain(
          "The email service refused the API key from stack config `emailDelivery:apiKey` (InvalidServerAPIKey)",
        );
        expect(error.details).toContain("If this key worked before and you rotated it since");
        expect(error.details).toContain("pass `--run-program`");
        expect(error.details).toContain("set EMAIL_DELIVERY_ROTATED_API_KEY to the new key");
        expect(error.details).not.toContain(oldKey);
        expect(emulator().state.domains.some((d) => d.id === domain.id)).toBe(true);
      } finally {
        await host.stop();
      }
    });
  });
});
