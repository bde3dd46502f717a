import { sameDomain } from "../provider/dns/spf-record";
import { CLAIMED_RECORD_TYPE, CloudflareRecordBody, Registration, RunOptions } from "./run-types";

/**
 * `hooks.cloudflareRecord` for the records this package writes itself (`ClaimedDnsRecord`, in
 * batches): from now until the returned undo runs, the stand-in changes each create's body, given
 * the registration (of `registrations`, being created) it was sent for. A `cloudflare.DnsRecord`'s
 * body is changed where the kit sends it (cloudflare-mocks.ts).
 */
export function rewriteClaimedRecords(
  options: RunOptions,
  registrations: readonly Registration[],
): (() => void)[] {
  const hook = options.hooks?.cloudflareRecord;
  const emulator = options.emulator;
  if (!hook || !emulator || options.mode !== "live") return [];
  emulator.cloudflare.rewriteCreates((body) => {
    const registration = registrations.find(
      (candidate) =>
        candidate.type === CLAIMED_RECORD_TYPE &&
        candidate.status === "pending" &&
        sameDomain(String(candidate.inputs.name), String(body.name)) &&
        candidate.inputs.type === body.type &&
        candidate.inputs.content === body.content,
    );
    return registration ? { ...hook(body as CloudflareRecordBody, registration) } : body;
  });
  return [() => emulator.cloudflare.rewriteCreates(undefined)];
}
