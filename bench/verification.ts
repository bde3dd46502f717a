import type { Emulator } from "../emulator";
import type { DnsRecord } from "../provider/client";
import type { VerificationInputs } from "../provider/inputs";
import { waitTimes } from "../provider/verification/wait";
import { publishRecords } from "../tests/support/cloudflare";
import { BenchProviders, configureProviders, emailApiCounts, since } from "./setup";

export interface VerificationFigures {
  /** Seconds after create started at which the records were published (made valid). */
  validAfterSeconds: number;
  pollIntervalSeconds: number;
  /** The wait's longest pause between polls, for the checked inputs (`maxPollIntervalSeconds`). */
  pollCapMs: number;
  /** From create's start: when publishing finished (records valid) and when create returned. */
  validAtMs: number;
  returnedAtMs: number;
  /** returnedAtMs - validAtMs; the target is ≤ the poll cap. */
  delayMs: number;
  /** Polls the wait made: its progress lines (one per poll that did not pass) + the passing one. */
  polls: number;
  /** `domains/check` requests the email API received during create. */
  checkRequests: number;
  /** When each check request arrived, from create's start. */
  checkTimesMs: number[];
  /** The pause before the passing poll (the interval in effect when the records became valid). */
  lastIntervalMs: number;
  verified: boolean;
}

/**
 * A domain created through the domain provider, then a verification created for it with
 * pollIntervalSeconds 1; its records are published in the Cloudflare stand-in (whose DNS server
 * the check resolves against) T seconds after the verification's create starts.
 */
export async function measureVerification(
  emulator: Emulator,
  providers: BenchProviders,
  validAfterSeconds = 3,
  pollIntervalSeconds = 1,
): Promise<VerificationFigures> {
  const { domainProvider, verificationProvider } = providers;
  await configureProviders(emulator, providers);
  const name = `verify${Math.round(validAfterSeconds * 10)}-${process.pid}.${emulator.cloudflare.zones[0].name}`;
  const domain = await domainProvider.create((await domainProvider.check!({}, { name })).inputs!);
  const records = domain.outs!.dnsRecords as DnsRecord[];
  const checked = await verificationProvider.check!(
    {},
    { domainId: Number(domain.id), timeoutSeconds: 60, pollIntervalSeconds },
  );
  if (checked.failures?.length) throw new Error(JSON.stringify(checked.failures));

  // The wait reports progress through pulumi.log.info, which prints "info: [runtime] …" without an engine.
  const progress: string[] = [];
  const consoleLog = console.log;
  console.log = (...args: unknown[]) => {
    const line = args.map(String).join(" ");
    if (line.startsWith("info: [runtime]")) progress.push(line);
    else consoleLog(...args);
  };
  emulator.requests.clear();
  const start = performance.now();
  const wallStart = Date.now();
  let validAtMs = NaN;
  const publishing = new Promise<void>((resolve, reject) =>
    setTimeout(() => {
      publishRecords(emulator, records).then(() => {
        validAtMs = since(start);
        resolve();
      }, reject);
    }, validAfterSeconds * 1000),
  );
  let created: Awaited<ReturnType<BenchProviders["verificationProvider"]["create"]>>;
  try {
    created = await verificationProvider.create(checked.inputs!);
  } finally {
    console.log = consoleLog;
  }
  const returnedAtMs = since(start);
  await publishing;

  const checks = emulator.requests
    .all()
    .filter((entry) => entry.service === "email-api" && entry.endpoint === "domains/check")
    .map((entry) => Date.parse(entry.at) - wallStart);
  const counts = emailApiCounts(emulator);
  await domainProvider.delete!(domain.id, domain.outs!);
  return {
    validAfterSeconds,
    pollIntervalSeconds,
    pollCapMs: waitTimes(checked.inputs as unknown as VerificationInputs).maxPollIntervalMs,
    validAtMs,
    returnedAtMs,
    delayMs: returnedAtMs - validAtMs,
    polls: progress.length + 1,
    checkRequests: counts["domains/check"] ?? 0,
    checkTimesMs: checks,
    lastIntervalMs: checks.length > 1 ? checks[checks.length - 1] - checks[checks.length - 2] : NaN,
    verified: created.outs?.verified === true,
  };
}
