import { z } from "zod";
import type { ClaimPolicy } from "../dns/existing-records";
import type { RecordPurpose } from "../dns/zone-records";
import {
  CheckedInputs,
  checkProperties,
  describeValue,
  nameSchema,
  oneOfSchema,
  PropertyRule,
} from "./check-inputs";
import { ttlProblem, zoneIdProblem } from "./cloudflare-inputs";

export const CLAIM_POLICIES = [
  "fail",
  "adopt",
  "overwrite",
  "merge",
  "add",
] as const satisfies readonly ClaimPolicy[];
export const RECORD_PURPOSES = [
  "spf",
  "dkim",
  "return_path",
  "mx",
  "dmarc",
] as const satisfies readonly RecordPurpose[];
export const CLAIMED_RECORD_TYPES = ["TXT", "CNAME", "MX"] as const;

/** What the claimed-record provider works with once `check()` has passed. */
export interface ClaimedRecordInputs {
  /** The Cloudflare zone's id. */
  zoneId: string;
  /** Which of the domain's records it is. */
  purpose: RecordPurpose;
  /** The FQDN, lowercase. */
  name: string;
  /** The record type: `TXT`, `CNAME` or `MX`. */
  type: (typeof CLAIMED_RECORD_TYPES)[number];
  /** As Cloudflare stores it (TXT quoted). For `merge`, the service's whole SPF record. */
  content: string;
  /** The MX priority; MX records only. */
  priority?: number;
  /** TTL in seconds; 1 means automatic. */
  ttl: number;
  /** With this stack's ownership mark first. */
  comment: string;
  /** What to do with a record the zone already holds at the name. */
  policy: ClaimPolicy;
  /** `project/stack`: whose ownership mark counts as this stack's. */
  owner: string;
  /** Names the stack had before `pulumi stack rename`: their marks count as its own too. Absent when none. */
  formerStacks?: string[];
}

/** A non-empty string; `what` names it in the reason. */
function text(what: string) {
  return z
    .string({ error: (issue) => `must be ${what}, not ${describeValue(issue.input)}` })
    .min(1, `must not be empty`);
}

/** How `check()` reads each of ClaimedRecordInputs's properties. */
const CLAIMED_RECORD_RULES: Record<keyof ClaimedRecordInputs, PropertyRule> = {
  zoneId: { schema: nameSchema(zoneIdProblem), required: true },
  purpose: { schema: oneOfSchema(RECORD_PURPOSES), required: true },
  name: {
    schema: text("the record's full name").refine(
      (name) => name === name.toLowerCase() && !name.endsWith("."),
      {
        error: "must be the full name in lowercase, without a final dot",
      },
    ),
    required: true,
  },
  type: { schema: oneOfSchema(CLAIMED_RECORD_TYPES), required: true },
  content: { schema: text("the record's content"), required: true },
  priority: {
    schema: z
      .number({ error: (issue) => `must be a number, not ${describeValue(issue.input)}` })
      .refine((value) => Number.isInteger(value) && value >= 0 && value <= 65535, "must be 0 to 65535"),
  },
  ttl: {
    schema: z
      .number({ error: (issue) => `must be a number of seconds, not ${describeValue(issue.input)}` })
      .superRefine((ttl, context) => {
        const problem = ttlProblem(ttl);
        if (problem) context.addIssue({ code: "custom", message: problem });
      }),
    required: true,
  },
  comment: { schema: text("the record's comment"), required: true },
  policy: { schema: oneOfSchema(CLAIM_POLICIES), required: true },
  owner: {
    schema: text("project/stack").regex(/^[^\s/:]+\/[^\s:]+$/, "must be project/stack"),
    required: true,
  },
  formerStacks: {
    schema: z.array(text("a stack name"), {
      error: (issue) => `must be a list of stack names, not ${describeValue(issue.input)}`,
    }),
  },
};

export function checkClaimedRecordInputs(news: object): CheckedInputs<ClaimedRecordInputs> {
  return checkProperties<ClaimedRecordInputs>("ClaimedDnsRecord", news, CLAIMED_RECORD_RULES);
}
