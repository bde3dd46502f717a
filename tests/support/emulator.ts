import {
  ClientSettings,
  createClient,
  EmailApiError,
  EmailDeliveryClient,
  isEmailApiError,
} from "../../provider/client";
import { Emulator, EmulatorOptions, startEmulator } from "../../emulator";

/** Starts an emulator for the file's tests (free ports on 127.0.0.1) and stops it afterwards. */
export function useEmulator(options: EmulatorOptions = {}): () => Emulator {
  let emulator: Emulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator(options);
  });
  afterAll(async () => {
    await emulator?.stop();
  });
  return () => {
    if (!emulator) throw new Error("the emulator has not started");
    return emulator;
  };
}

/** A client for the emulator's seeded server, with fast retries so tests stay quick. */
export function clientFor(emulator: Emulator, overrides: Partial<ClientSettings> = {}): EmailDeliveryClient {
  return createClient({
    baseUrl: emulator.emailApi.url,
    apiKey: emulator.emailApi.apiKey,
    masterKey: emulator.emailApi.masterKey,
    requestTimeoutMs: 5000,
    ...overrides,
    retry: { baseDelayMs: 5, maxDelayMs: 50, ...overrides.retry },
  });
}

/** A domain name unique within the test run. */
export function uniqueDomain(prefix = "d"): string {
  uniqueCounter += 1;
  return `${prefix}${uniqueCounter}-${process.pid}.example.com`;
}
let uniqueCounter = 0;

/** The EmailApiError a call fails with; anything else (or success) fails the test. */
export async function failureOf(promise: Promise<unknown>): Promise<EmailApiError> {
  try {
    await promise;
  } catch (error) {
    if (isEmailApiError(error)) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}
