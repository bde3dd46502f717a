import { recordOwner } from "./ownership";
import { mergeSpfIncludes, missingSpfIncludes, serviceSpfIncludes, spfIncludeProblem } from "./spf";
import { lowercaseSpfVersion } from "./spf-record";
import { unquoteTxt } from "./txt";
import {
  cnameAt,
  competes,
  type ExistingRecord,
  identical,
  isRecordPurpose,
  type PlannedRecord,
  type RecordPurpose,
  sameContent,
} from "./zone-records";

/**
 * What to do with a record the `Domain` component would publish, given what the zone already
 * holds at its name: a careful DNS administrator's rules, as one pure function shared by the
 * component (at preview, from `cloudflare.getDnsRecords`) and the provider that writes claimed
 * records (at `up`, from its own read of the zone), so both decide alike.
 *
 * - Records this stack made (its ownership mark, see ownership.ts) are its own: no conflict.
 * - Anything else at the name that competes with the record (another SPF record, any record where
 *   a CNAME goes, MX records that would share inbound mail) is someone else's: the policy decides.
 */

/**
 * What to do with a record at the name that this stack did not make:
 * - `fail`: stop at preview, naming the record, its content and these choices (the default);
 * - `adopt`: manage it as it is when it is identical to the record to publish (no second create);
 *   destroy leaves it as the user had it;
 * - `overwrite`: take it over with the record to publish; destroy restores what it held.
 */
export type ExistingRecordPolicy = "fail" | "adopt" | "overwrite";

/** SPF adds `merge`: the service's `include:` added to the one SPF record; destroy removes only that. */
export type SpfExistingRecordPolicy = ExistingRecordPolicy | "merge";

/**
 * MX: `fail` (the default) refuses while MX records this stack did not make exist, since
 * publishing beside them splits inbound mail between two providers; `add` publishes beside them
 * on purpose (an identical one is adopted).
 */
export type MxExistingRecordPolicy = "fail" | "add";

/**
 * Every policy a claimed record carries out: `fail` publishes only where the zone holds nothing
 * in the way (it creates, or refuses), the others may take over what is there.
 */
export type ClaimPolicy = ExistingRecordPolicy | SpfExistingRecordPolicy | MxExistingRecordPolicy;

/** The stack whose mark counts as "made by this stack". */
export interface Publisher {
  project: string;
  stack: string;
  /** What the stack was called before `pulumi stack rename`: those marks are its own too. */
  formerStacks?: readonly string[];
}

export type Claim =
  /** Nothing competes: publish it. */
  | { action: "create" }
  /** Publish beside what is there (MX with `add`). */
  | { action: "add" }
  | { action: "adopt"; record: ExistingRecord }
  | { action: "overwrite"; record: ExistingRecord }
  /** `content`: the merged record, unquoted; `added`: the domains whose includes were added (what destroy removes). */
  | { action: "merge"; record: ExistingRecord; content?: string; added?: string[] }
  /** Not decidable yet: the record's content is unknown (decided again once it is known). */
  | { action: "undecided" }
  /**
   * `notIdentical`: `adopt` met a record that holds something else, which is also what a record
   * the stack adopted before looks like once edited by hand (adopted records keep their owner's
   * comment): a caller that knows the stack published the domain before may treat it as drift.
   */
  | { action: "refuse"; problem: string; notIdentical?: true };

/**
 * The claim on `planned`'s name, given the zone's records at that name (any type) and the policy
 * for its purpose.
 */
export function claimFor(
  planned: PlannedRecord,
  zone: readonly ExistingRecord[],
  policy: ExistingRecordPolicy | SpfExistingRecordPolicy | MxExistingRecordPolicy,
  publisher: Publisher,
): Claim {
  const competing = zone.filter((record) => competes(planned, record));
  const owners = competing.map((record) =>
    recordOwner(record.comment, publisher.project, publisher.stack, publisher.formerStacks),
  );
  const foreign = competing.filter((_, index) => owners[index].kind !== "this-stack");
  const ownCount = competing.length - foreign.length;
  const describe = (record: ExistingRecord) => describeRecord(record, publisher);

  // A CNAME excludes every other record at its name (RFC 1034 §3.6.2): no policy can publish
  // there, not even beside it. Cloudflare refuses only an A or AAAA beside one (81054) and keeps
  // a TXT or MX there, so this rule, not the API, is what stops such a record.
  const cname =
    planned.type.toUpperCase() !== "CNAME" ? zone.find((record) => cnameAt(planned, record)) : undefined;
  if (cname) {
    const hosted =
      planned.purpose === "dmarc"
        ? " (a hosted DMARC service's: then leave `dmarc` out of this Domain, since that service publishes the policy)"
        : "";
    return {
      action: "refuse",
      problem:
        `the zone has a CNAME at ${planned.name}${hosted}: ${describe(cname)}. A CNAME may have no other record beside it, ` +
        `so the ${purposeName(planned.purpose)} cannot be published there under any policy. Remove the CNAME, or publish ` +
        "this domain's records elsewhere.",
    };
  }

  if (planned.purpose === "mx") {
    if (foreign.length === 0) return { action: "create" };
    if (policy === "add") {
      if (planned.content === undefined) return { action: "undecided" };
      const same = foreign.find((record) => identical(planned, record));
      if (same) return { action: "adopt", record: same };
      // The same mail host at another priority: adopting it would leave the service's priority
      // unapplied for good, and a second record to the same host is never what is meant.
      const samehost = foreign.find(
        (record) => record.type.toUpperCase() === "MX" && sameContent("MX", planned.content!, record.content),
      );
      if (samehost) {
        return {
          action: "refuse",
          problem:
            `the zone already has an MX record at ${planned.name} to the service's mail host at another priority: ` +
            `${describe(samehost)}; the service's is priority ${planned.priority ?? "(not known yet)"}. \`add\` publishes beside ` +
            "other providers' records, not a second record to the same host: remove that record (or set its priority to " +
            "the service's by hand, and it is adopted).",
        };
      }
      return { action: "add" };
    }
    return {
      action: "refuse",
      problem:
        `the zone already has MX records at ${planned.name} that this stack did not make: ` +
        `${foreign.map(describe).join("; ")}. Publishing the email service's MX records beside them would split ` +
        "incoming mail between two mail providers. Choose `mx: false` (a sending-only domain: no MX record, " +
        'and the verification leaves MX out), or `cloudflare.existingRecords.mx: "add"` to publish beside them on ' +
        "purpose, or remove them.",
    };
  }
  // A purpose the rules do not know competes with nothing (`competes`): nothing is in its way.
  if (foreign.length === 0 || !isRecordPurpose(planned.purpose)) return { action: "create" };

  const what = PURPOSE_NAMES[planned.purpose];
  if (planned.purpose === "spf" && competing.length > 1) {
    return {
      action: "refuse",
      problem:
        `the zone already has ${competing.length} SPF records at ${planned.name} (${competing.map(describe).join("; ")}). ` +
        "A name may have only one: receivers treat two as an SPF failure (a permerror, RFC 7208 §3.2), " +
        `whatever they say. Merge them into one by hand${ownCount > 0 ? " (this stack made one of them)" : ""}, then run again.`,
    };
  }
  if (foreign.length > 1) {
    return {
      action: "refuse",
      problem:
        `the zone already has ${foreign.length} records at ${planned.name} that this stack did not make, where the ` +
        `${what} goes: ${foreign.map(describe).join("; ")}. Adopting or overwriting takes one record; remove the ` +
        "others first.",
    };
  }
  const [existing] = foreign;
  switch (policy) {
    case "adopt":
      // Never identical, whatever it holds: DNS answers a proxied name with Cloudflare's addresses.
      if (existing.proxied) {
        return {
          action: "refuse",
          problem:
            `the ${what} at ${planned.name} is proxied through Cloudflare: ${describe(existing)}. DNS then answers ` +
            "with Cloudflare's own addresses, not its content, so the service's check never passes and `adopt` cannot " +
            'take it over: turn proxying off (it is then adopted if identical), or choose "overwrite" (published ' +
            "unproxied; restored as it was on destroy).",
        };
      }
      if (planned.content === undefined) return { action: "undecided" };
      if (identical(planned, existing)) return { action: "adopt", record: existing };
      return {
        action: "refuse",
        notIdentical: true,
        problem:
          `the ${what} at ${planned.name} already exists and is not the one to publish: it holds ${describe(existing)}, ` +
          `the service's is ${planned.type} ${JSON.stringify(planned.type.toUpperCase() === "TXT" ? unquoteTxt(planned.content) : planned.content)}. ` +
          `\`adopt\` takes over only an identical record: choose "overwrite" to replace it (restored on destroy)` +
          `${planned.purpose === "spf" ? ', or "merge"' : ""}, or remove it.`,
      };
    case "overwrite":
      return { action: "overwrite", record: existing };
    case "merge":
      if (planned.purpose !== "spf") break;
      if (planned.content === undefined) return { action: "merge", record: existing };
      return mergeClaim(planned.content, existing);
    default:
      break;
  }
  return {
    action: "refuse",
    problem:
      `the zone already has ${a(what)} at ${planned.name} that this stack did not make: ${describe(existing)}. ` +
      `Choose what to do with it in \`cloudflare.existingRecords.${POLICY_KEYS[planned.purpose]}\`: ` +
      `${planned.purpose === "spf" ? '"merge" (add the service\'s include to it; removed again on destroy), ' : ""}` +
      '"overwrite" (replace it; restored on destroy), "adopt" (only if it is identical), or remove it.',
  };
}

/** The property of `existingRecords` for each purpose. */
export const POLICY_KEYS: Record<RecordPurpose, string> = {
  spf: "spf",
  dkim: "dkim",
  return_path: "returnPath",
  mx: "mx",
  dmarc: "dmarc",
};

const PURPOSE_NAMES: Record<RecordPurpose, string> = {
  spf: "SPF record",
  dkim: "DKIM record",
  return_path: "return-path record",
  mx: "MX record",
  dmarc: "DMARC record",
};

/** What a record of `purpose` is called: `SPF record`, or `track domain record` for one the rules do not know. */
function purposeName(purpose: string): string {
  return isRecordPurpose(purpose) ? PURPOSE_NAMES[purpose] : `${purpose.replace(/_/g, " ")} record`;
}

/** The merge of the service's SPF record (`planned`, quoted) into the user's `existing` one. */
function mergeClaim(planned: string, existing: ExistingRecord): Claim {
  const includes = serviceSpfIncludes(unquoteTxt(planned));
  const current = unquoteTxt(existing.content);
  // An include the record names already is not added again: it must authorize the service's mail.
  const problems = includes.flatMap((include) => spfIncludeProblem(current, include) ?? []);
  if (problems.length > 0) {
    return {
      action: "refuse",
      problem:
        `the SPF record at ${existing.name} already names the service's include, but ${problems.join("; ")}. ` +
        "The service's own check finds the include and passes; receivers do not. Fix the record by hand " +
        `(${JSON.stringify(current)}), then run again.`,
    };
  }
  return {
    action: "merge",
    record: existing,
    // Spelled `v=spf1` so that the service's check sees it.
    content: lowercaseSpfVersion(mergeSpfIncludes(current, includes)),
    // Only what the record lacked: destroy must not take away an include the user had.
    added: missingSpfIncludes(current, includes),
  };
}

/** A record for messages: type, content, and who made it. */
export function describeRecord(record: ExistingRecord, publisher: Publisher): string {
  const owner = recordOwner(record.comment, publisher.project, publisher.stack, publisher.formerStacks);
  const content = record.type.toUpperCase() === "TXT" ? unquoteTxt(record.content) : record.content;
  const made =
    owner.kind === "this-stack"
      ? "made by this stack"
      : owner.kind === "other-stack"
        ? `made by stack ${owner.stack}`
        : record.comment
          ? `comment ${JSON.stringify(record.comment)}`
          : "no comment";
  const priority =
    record.priority !== undefined && record.type.toUpperCase() === "MX" ? ` ${record.priority}` : "";
  const proxied = record.proxied ? ", proxied" : "";
  return `${record.type.toUpperCase()}${priority} ${JSON.stringify(content)} (id ${record.id}, ${made}${proxied})`;
}

function a(noun: string): string {
  return /^[aeiouAEIOU]/.test(noun) || /^(MX|SPF)\b/.test(noun) ? `an ${noun}` : `a ${noun}`;
}
