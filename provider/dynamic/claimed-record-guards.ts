/**
 * The claimed record provider's checks before it writes, and the write that takes a user's record
 * over: each says what it found and that nothing was changed, or keeps what it took in state.
 */
import { log } from "./engine-log";
import type { ZoneRecord } from "../cloudflare/zone-record";
import { describeRecord, Publisher } from "../dns/existing-records";
import { competes, identical } from "../dns/zone-records";
import { recordOwner } from "../dns/ownership";
import { sameDomain } from "../dns/spf-record";
import { checkSpfLookups } from "../dns/spf-lookups";
import type { ClaimedRecordInputs } from "../inputs";
import { dnsResolverSetting } from "./dns-settings";
import type { ClaimedRecordOutputs, Ownership } from "./claimed-record-contents";
import { claimed } from "./claimed-record-contents";
import { Created, PartialWriteError, type StoredProviderProperty } from "./stored-provider";

/** The stack a claimed record's inputs name (`owner`, `project/stack`, and its former names). */
export function publisherOf(inputs: Pick<ClaimedRecordInputs, "owner" | "formerStacks">): Publisher {
  const slash = inputs.owner.indexOf("/");
  return {
    project: inputs.owner.slice(0, slash),
    stack: inputs.owner.slice(slash + 1),
    formerStacks: inputs.formerStacks ?? [],
  };
}

/**
 * Why the record the resource holds (`current`, read by its id) is no longer this stack's to give
 * back or delete, if it is not: the user moved it to another name, made it another type, or (for a
 * record written with the stack's mark) wrote another comment. Undefined while it is still the
 * record the stack wrote.
 */
export function noLongerThisStacks(
  current: ZoneRecord,
  state: Pick<ClaimedRecordOutputs, "name" | "type" | "owner" | "formerStacks">,
  ownership: Ownership,
): string | undefined {
  const moved = movedOrRetyped(current, state);
  if (moved) return moved;
  if (ownership === "created" || ownership === "overwritten") {
    const { project, stack, formerStacks } = publisherOf(state);
    if (recordOwner(current.comment, project, stack, formerStacks).kind !== "this-stack")
      return `its comment no longer carries this stack's mark (${JSON.stringify(current.comment ?? "")})`;
  }
  return undefined;
}

/** Why `current` is no longer the record at `state`'s name and of its type, if it is not. */
export function movedOrRetyped(
  current: ZoneRecord,
  state: { name: string; type: string },
): string | undefined {
  if (!sameDomain(current.name, state.name)) return `it is now named ${current.name}`;
  if (current.type.toUpperCase() !== state.type.toUpperCase()) return `it is now a ${current.type} record`;
  return undefined;
}

/**
 * Fails a create where the zone already holds a record this stack's mark claims and that no
 * resource of the stack holds (this one is being made): publishing beside it would make a second
 * SPF, DKIM, DMARC record or a CNAME beside one (an identical MX Cloudflare refuses). Such a record
 * is left by an `up` that stopped after making it, or is this `Domain`'s own `cloudflare.DnsRecord`
 * from before `existingRecords` chose a policy for it: `pulumi up` makes this resource before it
 * deletes that one, which is then deleted too, so it is not taken over either.
 */
export function refuseOwnRecordInTheWay(
  inputs: ClaimedRecordInputs,
  zone: readonly ZoneRecord[],
  publisher: Publisher,
): void {
  const own = zone.filter(
    (record) =>
      competes(inputs, record) &&
      recordOwner(record.comment, publisher.project, publisher.stack, publisher.formerStacks).kind ===
        "this-stack" &&
      (inputs.purpose !== "mx" || identical(inputs, record)),
  );
  if (own.length === 0) return;
  throw new Error(
    `${inputs.type} record ${inputs.name}: the zone already holds ${own.map((record) => describeRecord(record, publisher)).join("; ")}, ` +
      "which no resource of this stack holds: an earlier `pulumi up` stopped after making it, " +
      `or this Domain published it before \`cloudflare.existingRecords\` chose "${inputs.policy}" for it (a policy decides only about ` +
      'records this stack did not make). If the stack published it, set the policy of this record back to "fail"; ' +
      "else delete the record and run `pulumi up` again. Nothing was changed in the zone.",
  );
}

/**
 * Fails a merge whose record receivers would reject (permerror: over 10 lookups, a syntax error,
 * an include of a name without an SPF record…), with nothing written.
 */
export async function refuseRejectedMerge(inputs: ClaimedRecordInputs, merged: string): Promise<void> {
  const { problem, warning } = await checkSpfLookups(merged, inputs.name, dnsResolverSetting());
  // What could not be known, or where receivers differ (pyspf follows a `redirect=` beside `all`):
  // said where the merge is made, not only in a preview that may not have seen the include.
  if (!problem && warning) log.warn(`SPF record ${inputs.name}: merged, it would be "${merged}". ${warning}`);
  if (problem) {
    throw new Error(
      `SPF record ${inputs.name}: merged, it would be "${merged}": ${problem} Nothing was changed in the zone.`,
    );
  }
}

/**
 * The write that takes over the user's record. If it fails, it may have been made all the same (an
 * answer lost on the way): the record stays in state regardless, as an initialization failure of
 * the engine, with what it held before. The next `up` then writes it again (an update), and a
 * destroy gives it back; without it, the user's record would be changed with nothing to restore it.
 */
export async function takeOver(
  inputs: ClaimedRecordInputs & StoredProviderProperty,
  before: ZoneRecord,
  outs: Omit<ClaimedRecordOutputs, "recordId" | "publishedContent">,
  write: () => Promise<ZoneRecord>,
): Promise<Created<ClaimedRecordOutputs>> {
  try {
    return claimed(await write(), outs);
  } catch (error) {
    const message =
      `${inputs.type} record ${inputs.name}: ${(error as Error).message.replace(/\.$/, "")}. The write may have been made: the ` +
      "stack keeps the record with what it held before, so the next `pulumi up` writes it again and " +
      "`pulumi destroy` gives it back.";
    const properties = {
      ...outs,
      recordId: before.id,
      publishedContent: before.content,
      __provider: inputs.__provider,
    };
    throw new PartialWriteError(message, before.id, properties, { cause: error });
  }
}
