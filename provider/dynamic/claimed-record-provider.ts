import { log } from "./engine-log";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { DnsRecordsApi } from "../cloudflare/dns-records";
import { freshRecordsAt } from "../cloudflare/fresh-zone-reads";
import { viewAdded, viewRemoved, zoneView } from "../cloudflare/zone-view";
import { adoptMadeRecord, isCloudflareProviderState, notAsWritten } from "./cloudflare-provider-state";
import { batchesFor, cloudflareAccount, cloudflareApi, recordById, recordsNamed } from "./record-zone-access";
import type { ZoneRecord } from "../cloudflare/zone-record";
import { claimFor } from "../dns/existing-records";
import { sameContent } from "../dns/zone-records";
import { removeSpfIncludes, respellSpfIncludes, serviceSpfIncludes } from "../dns/spf";
import { isSpfRecord, lowercaseSpfVersion } from "../dns/spf-record";
import { quoteTxt, unquoteTxt } from "../dns/txt";
import { CheckedInputs, checkClaimedRecordInputs, ClaimedRecordInputs } from "../inputs";
import { rememberConfig } from "./configured";
import { diffByRules } from "./diff";
import {
  bodyOf,
  claimed,
  ClaimedRecordOutputs,
  desiredBody,
  expectedContent,
  inputsOf,
  original,
  Ownership,
  recordIn,
  remerged,
} from "./claimed-record-contents";
import {
  noLongerThisStacks,
  publisherOf,
  refuseRejectedMerge,
  refuseOwnRecordInTheWay,
  takeOver,
} from "./claimed-record-guards";
import {
  Created,
  ReadAnswer,
  StoredProviderProperty,
  TypedResourceProvider,
  Updated,
  withoutStoredProvider,
} from "./stored-provider";

type ClaimedRecordProps = ClaimedRecordInputs & StoredProviderProperty;
type ClaimedRecordState = ClaimedRecordOutputs & StoredProviderProperty;

/** The claimedRecordProvider as callers see it: every method there, each answer typed (see `TypedResourceProvider`). */
export type ClaimedRecordProvider = TypedResourceProvider<ClaimedRecordInputs, ClaimedRecordOutputs>;

/**
 * A DNS record the `Domain` component claims in a zone that may already hold one at its name:
 * adopted when identical, overwritten, merged (SPF) or added beside others (MX), or created when
 * nothing is there. It writes through Cloudflare's API itself (the Cloudflare provider's
 * resources cannot put a user's record back on destroy), with the default Cloudflare provider's
 * token (`cloudflare:apiToken` or CLOUDFLARE_API_TOKEN).
 *
 * Destroy gives back what was taken: a created record is deleted, an adopted one left as it is,
 * an overwritten one restored, a merged SPF record loses only the includes that were added.
 */
export const claimedRecordProvider: ClaimedRecordProvider = {
  configure: rememberConfig,

  async check(_olds: unknown, news: object): Promise<CheckedInputs<ClaimedRecordInputs>> {
    return checkClaimedRecordInputs(news);
  },

  async diff(_id: string, olds: ClaimedRecordState, news: ClaimedRecordProps): Promise<dynamic.DiffResult> {
    // A `cloudflare.DnsRecord` of an earlier version, moved here by its alias: updated once (it
    // is adopted by its id, written only where it differs), replaced only where a record would be.
    if (isCloudflareProviderState(olds)) {
      const rules = diffByRules(olds, news, { replace: ["zoneId", "name", "type"], update: [] });
      return { ...rules, changes: true, deleteBeforeReplace: true };
    }
    // The SPF record this stack merged into is no longer one (a refresh found other content in
    // it): nothing of the stack's is left in it, so the stack claims an SPF record anew.
    if (olds.ownership === "merged" && !isSpfRecord(unquoteTxt(olds.publishedContent)))
      return { changes: true, replaces: ["content"], deleteBeforeReplace: true };
    const rules = diffByRules(olds, news, {
      replace: ["zoneId", "name", "type"],
      update: ["content", "priority", "ttl", "comment"],
      deleteBeforeReplace: true,
    });
    // A record changed by hand since (a refresh read it): write it again. Compared as the rules
    // compare records (TXT unquoted, hosts without case or final dot): an adopted record written
    // otherwise is the same record, and a write would only turn it into an overwritten one. A
    // record proxied since answers with Cloudflare's addresses: written unproxied again.
    const drifted =
      rules.replaces.length === 0 &&
      (!sameContent(news.type, expectedContent(olds, news), olds.publishedContent) ||
        olds.publishedProxied === true);
    return { ...rules, changes: rules.changes || drifted };
  },

  async create(inputs: ClaimedRecordProps): Promise<Created<ClaimedRecordOutputs>> {
    const api = cloudflareApi();
    const account = cloudflareAccount();
    // A record that takes nothing over is checked against the process's view of the zone (a few
    // seconds behind, shared by every create of the command: zone-view.ts); one that may take a
    // record over, against the zone as it is now (read for this create and every create that
    // starts with it), since destroy puts back what it found.
    const zone =
      inputs.policy === "fail"
        ? recordsNamed(await zoneView(api, account, inputs.zoneId), inputs.name)
        : await freshRecordsAt(api, account, inputs.zoneId, inputs.name);
    const publisher = publisherOf(inputs);
    const claim = claimFor(inputs, zone, inputs.policy, publisher);
    const inputsOnly = withoutStoredProvider(inputs);
    switch (claim.action) {
      case "create":
      case "add": {
        refuseOwnRecordInTheWay(inputs, zone, publisher);
        // In the zone's next batch: one request for the creates under way together.
        const made = await batchesFor(account).create(inputs.zoneId, desiredBody(inputs));
        await viewAdded(account, inputs.zoneId, made);
        return claimed(made, { ...inputsOnly, ownership: "created" });
      }
      case "adopt":
        return claimed(recordIn(zone, claim.record), {
          ...inputsOnly,
          ownership: "adopted",
          original: original(recordIn(zone, claim.record)),
        });
      case "overwrite": {
        const before = recordIn(zone, claim.record);
        return takeOver(
          inputs,
          before,
          { ...inputsOnly, ownership: "overwritten", original: original(before) },
          () => api.replace(inputs.zoneId, before.id, desiredBody(inputs)),
        );
      }
      case "merge": {
        const before = recordIn(zone, claim.record);
        const merged = claim.content!;
        await refuseRejectedMerge(inputs, merged);
        const outs = {
          ...inputsOnly,
          ownership: "merged" as const,
          original: original(before),
          added: claim.added ?? [],
        };
        if (merged === unquoteTxt(before.content)) return claimed(before, outs);
        return takeOver(inputs, before, outs, () =>
          api.replace(inputs.zoneId, before.id, { ...bodyOf(before), content: quoteTxt(merged) }),
        );
      }
      case "undecided":
      case "refuse":
        throw new Error(
          `${inputs.type} record ${inputs.name}: ${claim.action === "refuse" ? claim.problem : "its content is not known"} Nothing was changed in the zone.`,
        );
    }
  },

  async read(
    id: string,
    state: ClaimedRecordState,
  ): Promise<ReadAnswer<ClaimedRecordInputs, ClaimedRecordOutputs>> {
    // From the process's view of the zone: a refresh's reads, sent all at once, share one read of it.
    const record = await recordById(cloudflareApi(), cloudflareAccount(), state.zoneId, id);
    if (!record) return { id: undefined, props: {} };
    // Moved, remade or re-marked by the user: theirs now, as destroy treats it. Gone from the
    // stack's view, so the next `up` claims the name anew (under its policy) instead of writing
    // the stack's record back over the user's.
    const legacy = isCloudflareProviderState(state);
    const moved = legacy ? notAsWritten(record, state) : noLongerThisStacks(record, state, state.ownership);
    if (moved) {
      log.warn(
        `${state.type} record ${state.name} (id ${id}) is no longer this stack's: ${moved}. It is left as it is, and ` +
          "the next `pulumi up` claims the name anew.",
      );
      return { id: undefined, props: {} };
    }
    // Still as the Cloudflare provider left it (the next `up` takes it on): only what it holds read.
    if (legacy) {
      const props = { ...withoutStoredProvider(state), content: record.content, proxied: record.proxied };
      return { id, props, inputs: props } as unknown as ReadAnswer<ClaimedRecordInputs, ClaimedRecordOutputs>;
    }
    const { publishedProxied: _before, ...kept } = withoutStoredProvider(state);
    const outs: ClaimedRecordOutputs = {
      ...kept,
      publishedContent: record.content,
      ...(record.proxied ? { publishedProxied: true } : {}),
    };
    return { id, props: outs, inputs: inputsOf(outs) };
  },

  async update(
    id: string,
    olds: ClaimedRecordState,
    news: ClaimedRecordProps,
  ): Promise<Updated<ClaimedRecordOutputs>> {
    const api = cloudflareApi();
    const current = await api.get(news.zoneId, id);
    if (!current) {
      throw new Error(
        `${news.type} record ${news.name} (id ${id}) is no longer in the zone: run \`pulumi refresh\` (it is then ` +
          "claimed again by the next `pulumi up`).",
      );
    }
    if (isCloudflareProviderState(olds))
      return adoptMadeRecord(api, id, current, withoutStoredProvider(news));
    const moved = noLongerThisStacks(current, olds, olds.ownership);
    if (moved) {
      throw new Error(
        `${news.type} record ${news.name} (id ${id}) is no longer this stack's: ${moved}. Run \`pulumi refresh\` ` +
          "(the stack then lets it go), then `pulumi up` to claim the name anew. Nothing was changed in the zone.",
      );
    }
    const { publishedProxied: _proxied, ...state } = withoutStoredProvider(olds);
    const inputsOnly = withoutStoredProvider(news);
    if (olds.ownership === "merged") {
      if (!isSpfRecord(unquoteTxt(current.content))) {
        throw new Error(
          `SPF record ${news.name} (id ${id}) is no longer an SPF record: it holds ${current.content}. Run ` +
            "`pulumi refresh`, then `pulumi up`: this Domain then claims an SPF record anew. Nothing was changed in the zone.",
        );
      }
      const next = remerged(current.content, news.content, state.added ?? []);
      await refuseRejectedMerge(news, next.content);
      const written =
        next.content === unquoteTxt(current.content)
          ? current
          : await api.replace(news.zoneId, id, { ...bodyOf(current), content: quoteTxt(next.content) });
      return { outs: { ...state, ...inputsOnly, added: next.added, publishedContent: written.content } };
    }
    const written = await api.replace(news.zoneId, id, desiredBody(news));
    // An adopted record written over is one this stack overwrote: destroy puts back what was adopted.
    const ownership: Ownership = olds.ownership === "adopted" ? "overwritten" : olds.ownership;
    return { outs: { ...state, ...inputsOnly, ownership, publishedContent: written.content } };
  },

  async delete(id: string, stored: ClaimedRecordState): Promise<void> {
    if (stored.ownership === "adopted") return; // the user's record, as they had it
    const legacy = isCloudflareProviderState(stored);
    // A `cloudflare.DnsRecord` moved here and replaced before its first update: one this stack made.
    const state: ClaimedRecordState = legacy ? { ...stored, ownership: "created" } : stored;
    const api = cloudflareApi();
    const account = cloudflareAccount();
    // A record published under "fail" (a `cloudflare.DnsRecord` before, deleted by id unlooked)
    // is looked at in the process's view of the zone, which a destroy's deletes share; any other,
    // as it is now, as every policy's record always was.
    const viewed = state.ownership === "created" && (legacy || state.policy === "fail");
    const current = viewed
      ? await recordById(api, account, state.zoneId, id)
      : await api.get(state.zoneId, id);
    if (!current) return; // deleted by someone since: nothing to delete or put back
    // Only what is still this stack's: a record the user moved or remade is theirs now.
    const moved = legacy ? notAsWritten(current, state) : noLongerThisStacks(current, state, state.ownership);
    if (moved) {
      log.warn(
        `${state.type} record ${state.name} (id ${id}) was left as it is: ${moved}, so it is no longer what this stack ` +
          `wrote${state.ownership === "created" ? "" : ", and what it held before is not put back"}.`,
      );
      return;
    }
    switch (state.ownership) {
      case "created":
        // In the zone's next batch: one request for the deletes under way together.
        await batchesFor(account).remove(state.zoneId, id);
        await viewRemoved(account, state.zoneId, id);
        return;
      case "overwritten": {
        if (!state.original) return;
        // The whole record as it was: its type, and a priority only if it had one.
        const { type, ...held } = state.original;
        await api.replace(state.zoneId, id, { name: current.name, type: type ?? current.type, ...held });
        return;
      }
      case "merged":
        await unmerge(api, state, id, current);
        return;
    }
  },
};

/** Takes out of a merged record the includes this stack added, as the user wrote it when that is what is left. */
async function unmerge(api: DnsRecordsApi, state: ClaimedRecordOutputs, id: string, current: ZoneRecord) {
  // No longer an SPF record (the user reused it): nothing of this stack's is in it.
  if (!isSpfRecord(unquoteTxt(current.content))) return;
  const unmerged = removeSpfIncludes(unquoteTxt(current.content), state.added ?? []);
  // Back as the user wrote it (their strings, quoted or not, an include in their letters) when
  // that is what is left: the merge only respelled the service's include and wrote `v=spf1`.
  const includes = isSpfRecord(unquoteTxt(state.content))
    ? serviceSpfIncludes(unquoteTxt(state.content))
    : [];
  const asMerged = (record: string) => respellSpfIncludes(lowercaseSpfVersion(record), includes);
  const original =
    state.original && isSpfRecord(unquoteTxt(state.original.content)) ? state.original : undefined;
  const content =
    original && asMerged(unquoteTxt(original.content)) === asMerged(unmerged)
      ? original.content
      : quoteTxt(unmerged);
  if (unquoteTxt(content) === unquoteTxt(current.content)) return;
  await api.replace(state.zoneId, id, { ...bodyOf(current), content });
}
