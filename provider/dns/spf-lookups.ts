import { promises as dns } from "node:dns";
import { countSpfLookups, spfLookupProblem, spfUnresolvedWarning } from "./spf-lookup-count";

/** How long one TXT lookup may take before it counts as a failure (temperror). */
const LOOKUP_TIMEOUT_MS = 5000;

/**
 * The RFC 7208 lookup count of an SPF record (unquoted), resolved through this machine's DNS
 * resolver: `problem` when receivers would return permerror (over 10 lookups), `warning` when
 * some include could not be followed (the count is then a lower bound).
 */
export async function checkSpfLookups(
  record: string,
  domain?: string,
): Promise<{ problem?: string; warning?: string; total: number }> {
  const count = await countSpfLookups(record, resolveTxt, { domain });
  return { problem: spfLookupProblem(count), warning: spfUnresolvedWarning(count), total: count.total };
}

/** `dns.resolveTxt`, bounded: a resolver that never answers is a failed lookup, not a hung `up`. */
function resolveTxt(name: string): Promise<string[][]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error("no answer"), { code: "ETIMEOUT" })),
      LOOKUP_TIMEOUT_MS,
    );
  });
  return Promise.race([dns.resolveTxt(name), timeout]).finally(() => clearTimeout(timer));
}
