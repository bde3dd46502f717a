import { z } from "zod";
import {
  CheckedInputs,
  checkProperties,
  describeValue,
  idSchema,
  PropertyRule,
  secondsSchema,
} from "./check-inputs";
import { zoneIdProblem } from "./cloudflare-inputs";
import { isUnknown } from "./unknown";
import type { DnsRecord } from "../client/types";

/** The service's four DNS checks, by the names used in inputs. */
export const CHECK_NAMES = ["spf", "dkim", "mx", "returnPath"] as const;
/** One of {@link CHECK_NAMES}. */
export type CheckName = (typeof CHECK_NAMES)[number];

/** @default 600: well under a CI job's limit, long enough for DNS to settle. */
export const DEFAULT_TIMEOUT_SECONDS = 600;
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;
export const MAX_TIMEOUT_SECONDS = 7200;
/**
 * Waits between polls grow to at most this by default. Records turn valid at a moment the wait
 * cannot know, and are seen at the next poll: waits of at most 5 s see them within 5 s (4.4 s at
 * the 90th percentile over the first 2 minutes, tests/verification/wait.test.ts), at the cost of
 * a check every 4-5 s (each check makes the service do a few DNS lookups).
 */
export const DEFAULT_MAX_POLL_INTERVAL_SECONDS = 5;

/** What the verification provider works with once `check()` has passed. */
export interface VerificationInputs {
  /** The domain's id. */
  domainId: number;
  /** The checks that must report OK. */
  checks: CheckName[];
  /** How long `pulumi up` waits, in seconds. */
  timeoutSeconds: number;
  /** First wait between checks, in seconds. */
  pollIntervalSeconds: number;
  /** Absent in state written before it was an input: it then reads as its default. */
  maxPollIntervalSeconds?: number;
  /**
   * The records the domain should publish, as the service gave them (a `Domain`'s `dnsRecords`).
   * With them the wait asks DNS before the service, and a failure says what DNS serves instead.
   * Absent in state written before it was an input, and for a verification given none.
   */
  dnsRecords?: DnsRecord[];
  /** The Cloudflare zone the records are published in: a failure then shows what it holds. */
  zoneId?: string;
  /**
   * What the wait does when the service's checks pass and receivers would not accept the mail:
   * fail (`fail`), or pass with a warning (`warn`). Absent in state written before it was an input:
   * it then reads as its default.
   */
  whenReceiversReject?: WhenReceiversReject;
}

/** What a verification does when receivers would not accept the domain's mail. */
export const WHEN_RECEIVERS_REJECT = ["fail", "warn"] as const;
/** One of {@link WHEN_RECEIVERS_REJECT}. */
export type WhenReceiversReject = (typeof WHEN_RECEIVERS_REJECT)[number];
/** @default "fail": a posture receivers reject is never reported as plain success. */
export const DEFAULT_WHEN_RECEIVERS_REJECT: WhenReceiversReject = "fail";

/** The default longest wait: 5 s, or the poll interval when that is longer. */
export function defaultMaxPollInterval(pollIntervalSeconds: number): number {
  return Math.max(DEFAULT_MAX_POLL_INTERVAL_SECONDS, pollIntervalSeconds);
}

/** A non-empty list of distinct check names; unknown elements (preview) pass through. */
const checksSchema = z
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

/** One record as a `Domain`'s `dnsRecords` hold it (the client's `DnsRecord`). */
const dnsRecordSchema = z.object({
  purpose: z.string(),
  type: z.string(),
  name: z.string(),
  content: z.string(),
  priority: z.number().optional(),
});

/** Why `value` is not a record, naming the field: "[1] has no purpose", "[0].priority must be a number". */
function recordProblem(index: number, value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return `[${index}] must be a record ({ purpose, type, name, content }), not ${describeValue(value)}`;
  const issue = dnsRecordSchema.safeParse(value).error?.issues[0];
  if (!issue) return undefined;
  const field = String(issue.path[0]);
  const given = (value as Record<string, unknown>)[field];
  if (given === undefined) return `[${index}] has no ${field} (a record has purpose, type, name and content)`;
  return `[${index}].${field} must be ${field === "priority" ? "a number" : "text"}, not ${describeValue(given)}`;
}

/** A list of records; one unknown at preview passes through, as a whole list unknown does. */
const dnsRecordsSchema = z
  .array(z.unknown(), {
    error: (issue) => `must be a list of records (a Domain's dnsRecords), not ${describeValue(issue.input)}`,
  })
  .superRefine((values, context) => {
    for (const [index, value] of values.entries()) {
      const problem = isUnknown(value) ? undefined : recordProblem(index, value);
      if (problem) context.addIssue({ code: "custom", message: problem });
    }
  }) as z.ZodType<DnsRecord[]>;

const zoneIdSchema = z
  .string({ error: (issue) => `must be a Cloudflare zone's id, not ${describeValue(issue.input)}` })
  .superRefine((zoneId, context) => {
    const problem = zoneIdProblem(zoneId);
    if (problem) context.addIssue({ code: "custom", message: problem });
  });

/** How `check()` reads each of VerificationInputs's properties. */
const VERIFICATION_RULES: Record<keyof VerificationInputs, PropertyRule> = {
  domainId: { schema: idSchema, required: true },
  checks: { schema: checksSchema, default: [...CHECK_NAMES] },
  timeoutSeconds: { schema: secondsSchema(1, MAX_TIMEOUT_SECONDS), default: DEFAULT_TIMEOUT_SECONDS },
  pollIntervalSeconds: { schema: secondsSchema(1, 300), default: DEFAULT_POLL_INTERVAL_SECONDS },
  // Its default depends on pollIntervalSeconds: filled in below.
  maxPollIntervalSeconds: { schema: secondsSchema(1, 300) },
  dnsRecords: { schema: dnsRecordsSchema },
  zoneId: { schema: zoneIdSchema },
  whenReceiversReject: {
    schema: z.enum(WHEN_RECEIVERS_REJECT, {
      error: (issue) => `must be "fail" or "warn", not ${describeValue(issue.input)}`,
    }),
    default: DEFAULT_WHEN_RECEIVERS_REJECT,
  },
};

export function checkVerificationInputs(news: object): CheckedInputs<VerificationInputs> {
  const result = checkProperties<VerificationInputs>("DomainVerification", news, VERIFICATION_RULES);
  const { timeoutSeconds, pollIntervalSeconds, maxPollIntervalSeconds } = result.inputs;
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
  if (
    typeof maxPollIntervalSeconds === "number" &&
    typeof pollIntervalSeconds === "number" &&
    maxPollIntervalSeconds < pollIntervalSeconds
  ) {
    result.failures.push({
      property: "maxPollIntervalSeconds",
      reason: `must not be shorter than pollIntervalSeconds (${pollIntervalSeconds})`,
    });
  }
  const given: Record<string, unknown> = { ...news };
  if (given.maxPollIntervalSeconds === undefined || given.maxPollIntervalSeconds === null) {
    // A poll interval unknown at preview makes its default unknown too (the same placeholder).
    result.inputs.maxPollIntervalSeconds = isUnknown(pollIntervalSeconds)
      ? pollIntervalSeconds
      : defaultMaxPollInterval(
          typeof pollIntervalSeconds === "number" ? pollIntervalSeconds : DEFAULT_POLL_INTERVAL_SECONDS,
        );
  }
  return result;
}
