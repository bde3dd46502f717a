import { z } from "zod";
import { CheckFailure, checkProperties, describeValue, idSchema, secondsSchema } from "./check-inputs";
import { isUnknown } from "./unknown";

/** The service's four DNS checks, by the names used in inputs. */
export const CHECK_NAMES = ["spf", "dkim", "mx", "returnPath"] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

/** @default 600: well under a CI job's limit, long enough for DNS to settle. */
export const DEFAULT_TIMEOUT_SECONDS = 600;
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;
export const MAX_TIMEOUT_SECONDS = 7200;

/** What the verification provider works with once `check()` has passed. */
export interface VerificationInputs {
  domainId: number;
  checks: CheckName[];
  timeoutSeconds: number;
  pollIntervalSeconds: number;
}

export function checkVerificationInputs(news: Record<string, unknown>): {
  inputs: Record<string, unknown>;
  failures: CheckFailure[];
} {
  const result = checkProperties("DomainVerification", news, {
    domainId: { schema: idSchema, required: true },
    checks: { schema: checksSchema, default: [...CHECK_NAMES] },
    timeoutSeconds: { schema: () => secondsSchema(1, MAX_TIMEOUT_SECONDS), default: DEFAULT_TIMEOUT_SECONDS },
    pollIntervalSeconds: { schema: () => secondsSchema(1, 300), default: DEFAULT_POLL_INTERVAL_SECONDS },
  });
  const { timeoutSeconds, pollIntervalSeconds } = result.inputs;
  if (
    typeof timeoutSeconds === "number" &&
    typeof pollIntervalSeconds === "number" &&
    pollIntervalSeconds > timeoutSeconds
  ) {
    result.failures.push({
      property: "pollIntervalSeconds",
      reason: `must not be longer than timeoutSeconds (${timeoutSeconds})`,
    });
  }
  return result;
}

/** A non-empty list of distinct check names; unknown elements (preview) pass through. */
function checksSchema(): z.ZodType<string[]> {
  return z
    .array(z.unknown(), { error: (issue) => `must be a list of checks, not ${describeValue(issue.input)}` })
    .superRefine((values, context) => {
      if (values.length === 0) {
        context.addIssue({ code: "custom", message: `must name at least one of ${CHECK_NAMES.join(", ")}` });
      }
      const seen = new Set<unknown>();
      for (const value of values) {
        if (isUnknown(value)) continue;
        if (!(CHECK_NAMES as readonly unknown[]).includes(value)) {
          context.addIssue({
            code: "custom",
            message: `has ${describeValue(value)}; checks are ${CHECK_NAMES.join(", ")}`,
          });
        } else if (seen.has(value)) {
          context.addIssue({ code: "custom", message: `names ${String(value)} twice` });
        }
        seen.add(value);
      }
    }) as z.ZodType<string[]>;
}
