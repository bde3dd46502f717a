import type * as pulumi from "@pulumi/pulumi";
import { forgetConfig } from "../../provider/dynamic/configured";
import { setClientDefaults } from "../../provider/dynamic/connection";
import { providerLoaderText } from "../../provider/dynamic/loader";
import type { Emulator } from "../../emulator";

/** A `configure()` request as the provider host builds it, from plain `namespace:key` config. */
export function configureRequest(config: Record<string, string>): pulumi.dynamic.ConfigureRequest {
  return {
    config: {
      get: (key: string) => config[key.includes(":") ? key : `email-delivery:${key}`],
      require: (key: string) => {
        const value = config[key];
        if (value === undefined) throw new Error(`Missing required configuration key: ${key}`);
        return value;
      },
    },
  };
}

/** Configures every provider for the emulator's seeded server through stack config (not env). */
export async function configureFor(
  emulator: Emulator,
  providers: pulumi.dynamic.ResourceProvider[],
  apiKey = emulator.emailApi.apiKey,
): Promise<void> {
  await configureForUrl(emulator.emailApi.url, providers, apiKey);
}

/** The key scripted servers are called with (they accept any). */
export const SCRIPTED_KEY = "ScriptedKey0000000000001";

/** As `configureFor`, for a service at `url` (a scripted server, a fork). */
export async function configureForUrl(
  url: string,
  providers: pulumi.dynamic.ResourceProvider[],
  apiKey = SCRIPTED_KEY,
): Promise<void> {
  forgetConfig();
  // The service's behaviour under faults is tested elsewhere; here retries just need to be quick.
  setClientDefaults({ retry: { baseDelayMs: 5, maxDelayMs: 20 } });
  const request = configureRequest({ "emailDelivery:baseUrl": url, "emailDelivery:apiKey": apiKey });
  for (const provider of providers) await provider.configure!(request);
}

export async function failure(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error("expected the call to fail");
}

/**
 * The `__provider` texts this version's resources store (what the engine sends the provider host
 * with every request), by resource kind.
 */
export function loaderTexts(): { domain: string; route: string; verification: string } {
  return {
    domain: providerLoaderText("domainProvider"),
    route: providerLoaderText("routeProvider"),
    verification: providerLoaderText("verificationProvider"),
  };
}

/** A DomainVerification's inputs as `check` returns them: every check, 10 s, polling each 1 s. */
export function verificationInputs(domainId: number, overrides: Record<string, unknown> = {}) {
  return {
    domainId,
    checks: ["spf", "dkim", "mx", "returnPath"],
    timeoutSeconds: 10,
    pollIntervalSeconds: 1,
    __provider: "serialized provider text",
    ...overrides,
  };
}
