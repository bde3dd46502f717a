import type * as dynamic from "@pulumi/pulumi/dynamic";
import { dnsRecordsApi, DnsRecordsApi } from "../cloudflare/dns-records";
import { freshRecordsAt } from "../cloudflare/fresh-zone-reads";
import type { ZoneRecord } from "../cloudflare/zone-record";
import {
  claimFor,
  competes,
  describeRecord,
  identical,
  Publisher,
  sameContent,
} from "../dns/existing-records";
import { recordOwner } from "../dns/ownership";
import { mergeSpfIncludes, removeSpfIncludes, serviceSpfIncludes } from "../dns/spf";
import { isSpfRecord, lowercaseSpfVersion } from "../dns/spf-record";
import { checkSpfLookups } from "../dns/spf-lookups";
import { quoteTxt, unquoteTxt } from "../dns/txt";
import { checkClaimedRecordInputs, ClaimedRecordInputs } from "../inputs";
import { cloudflareSetting, rememberConfig } from "./connection";
import { diffByRules } from "./diff";
import {
  addedBy,
  bodyOf,
  claimed,
  ClaimedRecordOutputs,
  desiredBody,
  expectedContent,
  inputsOf,
  original,
  Ownership,
  recordIn,
} from "./claimed-record-contents";
import { ReadAnswer, StoredProviderProperty, withoutStoredProvider } from "./stored-provider";

type ClaimedRecordProps = ClaimedRecordInputs & StoredProviderProperty;
type ClaimedRecordState = ClaimedRecordOutputs & StoredProviderProperty;

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
export const claimedRecordProvider: dynamic.ResourceProvider = {
  configure: rememberConfig,

  async check(_olds: unknown, news: object): Promise<dynamic.CheckResult<ClaimedRecordInputs>> {
    return checkClaimedRecordInputs(news);
  },

  async diff(_id: string, olds: ClaimedRecordState, news: ClaimedRecordProps): Promise<dynamic.DiffResult> {
    const rules = diffByRules(olds, news, {
      replace: ["zoneId", "name", "type"],
      update: ["content", "priority", "ttl", "comment"],
      deleteBeforeReplace: true,
    });
    // A record changed by hand since (a refresh read it): write it again. Compared as the rules
    // compare records (TXT unquoted, hosts without case or final dot): an adopted record written
    // otherwise is the same record, and a write would only turn it into an overwritten one.
    const drifted =
      rules.replaces.length === 0 &&
      !sameContent(news.type, expectedContent(olds, news), olds.publishedContent);
    return { ...rules, changes: rules.changes || drifted };
  },

  async create(inputs: ClaimedRecordProps): Promise<dynamic.CreateResult<ClaimedRecordOutputs>> {
    const api = cloudflareApi();
    // The zone as it is now, read for this create (and every create that starts with it).
    const zone = await freshRecordsAt(api, cloudflareAccount(), inputs.zoneId, inputs.name);
    const [project, stack] = splitOwner(inputs.owner);
    const claim = claimFor(inputs, zone, inputs.policy, { project, stack });
    const inputsOnly = withoutStoredProvider(inputs);
    switch (claim.action) {
      case "create":
      case "add": {
        refuseOwnRecordInTheWay(inputs, zone, { project, stack });
        const made = await api.create(inputs.zoneId, desiredBody(inputs));
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
        await refuseOverLookupLimit(inputs, merged);
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
    const record = await cloudflareApi().get(state.zoneId, id);
    if (!record) return { id: undefined, props: {} };
    const outs: ClaimedRecordOutputs = { ...withoutStoredProvider(state), publishedContent: record.content };
    return { id, props: outs, inputs: inputsOf(outs) };
  },

  async update(
    id: string,
    olds: ClaimedRecordState,
    news: ClaimedRecordProps,
  ): Promise<dynamic.UpdateResult<ClaimedRecordOutputs>> {
    const api = cloudflareApi();
    const current = await api.get(news.zoneId, id);
    if (!current) {
      throw new Error(
        `${news.type} record ${news.name} (id ${id}) is no longer in the zone: run \`pulumi refresh\` (it is then ` +
          "claimed again by the next `pulumi up`).",
      );
    }
    const state = withoutStoredProvider(olds);
    const inputsOnly = withoutStoredProvider(news);
    if (olds.ownership === "merged") {
      const merged = lowercaseSpfVersion(
        mergeSpfIncludes(unquoteTxt(current.content), serviceSpfIncludes(unquoteTxt(news.content))),
      );
      await refuseOverLookupLimit(news, merged);
      const written =
        merged === unquoteTxt(current.content)
          ? current
          : await api.replace(news.zoneId, id, { ...bodyOf(current), content: quoteTxt(merged) });
      const added = [...new Set([...(state.added ?? []), ...addedBy(current.content, news.content)])];
      return { outs: { ...state, ...inputsOnly, added, publishedContent: written.content } };
    }
    const written = await api.replace(news.zoneId, id, desiredBody(news));
    // An adopted record written over is one this stack overwrote: destroy puts back what was adopted.
    const ownership: Ownership = olds.ownership === "adopted" ? "overwritten" : olds.ownership;
    return { outs: { ...state, ...inputsOnly, ownership, publishedContent: written.content } };
  },

  async delete(id: string, state: ClaimedRecordState): Promise<void> {
    const api = cloudflareApi();
    switch (state.ownership) {
      case "created":
        await api.remove(state.zoneId, id);
        return;
      case "adopted":
        return; // the user's record, as they had it
      case "overwritten": {
        const current = await api.get(state.zoneId, id);
        if (!current || !state.original) return; // deleted by someone since: nothing to put back
        // The whole record as it was: its type, and a priority only if it had one.
        const { type, ...held } = state.original;
        await api.replace(state.zoneId, id, { name: current.name, type: type ?? current.type, ...held });
        return;
      }
      case "merged": {
        const current = await api.get(state.zoneId, id);
        // Gone, or no longer an SPF record (the user reused it): nothing of this stack's is in it.
        if (!current || !isSpfRecord(unquoteTxt(current.content))) return;
        const unmerged = removeSpfIncludes(unquoteTxt(current.content), state.added ?? []);
        if (unmerged === unquoteTxt(current.content)) return;
        // Back as the user wrote it (their strings, quoted or not) when that is what is left.
        const content =
          state.original &&
          lowercaseSpfVersion(unquoteTxt(state.original.content)) === lowercaseSpfVersion(unmerged)
            ? state.original.content
            : quoteTxt(unmerged);
        await api.replace(state.zoneId, id, { ...bodyOf(current), content });
        return;
      }
    }
  },
};

/**
 * The write that takes over the user's record. If it fails, it may have been made all the same (an
 * answer lost on the way): the record stays in state regardless, as an initialization failure of
 * the engine, with what it held before. The next `up` then writes it again (an update), and a
 * destroy gives it back; without it, the user's record would be changed with nothing to restore it.
 */
async function takeOver(
  inputs: ClaimedRecordProps,
  before: ZoneRecord,
  outs: Omit<ClaimedRecordOutputs, "recordId" | "publishedContent">,
  write: () => Promise<ZoneRecord>,
): Promise<dynamic.CreateResult<ClaimedRecordOutputs>> {
  try {
    return claimed(await write(), outs);
  } catch (error) {
    const message =
      `${inputs.type} record ${inputs.name}: ${(error as Error).message.replace(/\.$/, "")}. The write may have been made: the ` +
      "stack keeps the record with what it held before, so the next `pulumi up` writes it again and " +
      "`pulumi destroy` gives it back.";
    // The state must carry `__provider`: Pulumi stores exactly these properties.
    const properties = {
      ...outs,
      recordId: before.id,
      publishedContent: before.content,
      __provider: inputs.__provider,
    };
    throw Object.assign(new Error(message, { cause: error }), {
      id: before.id,
      properties,
      reasons: [message],
    });
  }
}

function cloudflareAccount(): { baseUrl: string; apiToken: string } {
  return { baseUrl: cloudflareSetting("baseUrl"), apiToken: cloudflareSetting("apiToken") };
}

function cloudflareApi(): DnsRecordsApi {
  return dnsRecordsApi(cloudflareAccount());
}

function splitOwner(owner: string): [string, string] {
  const slash = owner.indexOf("/");
  return [owner.slice(0, slash), owner.slice(slash + 1)];
}

/**
 * Fails a create where the zone already holds a record this stack's mark claims and that no
 * resource of the stack holds (this one is being made): publishing beside it would make a second
 * SPF, DKIM, DMARC record or a CNAME beside one (an identical MX Cloudflare refuses). Such a record
 * is left by an `up` that stopped after making it, or is this `Domain`'s own `cloudflare.DnsRecord`
 * from before `existingRecords` chose a policy for it: `pulumi up` makes this resource before it
 * deletes that one, which is then deleted too, so it is not taken over either.
 */
function refuseOwnRecordInTheWay(
  inputs: ClaimedRecordInputs,
  zone: readonly ZoneRecord[],
  publisher: Publisher,
) {
  const own = zone.filter(
    (record) =>
      competes(inputs, record) &&
      recordOwner(record.comment, publisher.project, publisher.stack).kind === "this-stack" &&
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

/** Fails a merge whose record would need more DNS lookups than receivers evaluate (nothing written). */
async function refuseOverLookupLimit(inputs: ClaimedRecordInputs, merged: string): Promise<void> {
  const { problem } = await checkSpfLookups(merged, inputs.name);
  if (problem) {
    throw new Error(
      `SPF record ${inputs.name}: merged, it would be "${merged}": ${problem} Nothing was changed in the zone.`,
    );
  }
}
