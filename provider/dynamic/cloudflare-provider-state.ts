/**
 * Records an earlier version of this package published as `cloudflare.DnsRecord`s: a `Domain`
 * declares each record as a `ClaimedDnsRecord` now, with an alias from the old type, so the
 * engine hands the claimed-record provider the state the Cloudflare provider left. The record is
 * taken on by its id, never deleted and made again (docs/upgrading.md).
 */
import type { DnsRecordsApi } from "../cloudflare/dns-records";
import type { ZoneRecord } from "../cloudflare/zone-record";
import { sameContent } from "../dns/zone-records";
import type { ClaimedRecordInputs } from "../inputs";
import { ClaimedRecordOutputs, desiredBody } from "./claimed-record-contents";
import { movedOrRetyped, noLongerThisStacks } from "./claimed-record-guards";
import type { Updated } from "./stored-provider";

/**
 * State a `cloudflare.DnsRecord` left (no `ownership`): an earlier version published the record
 * that way, and the resource's alias brought it here.
 */
export function isCloudflareProviderState(olds: object): boolean {
  return (olds as { ownership?: unknown }).ownership === undefined;
}

/**
 * Why a record the Cloudflare provider made for this stack (`state`, as it left it) is no longer
 * the stack's, if it is not: moved, made another type, or its comment (the stack's mark) rewritten.
 */
export function notAsWritten(
  current: ZoneRecord,
  state: { name: string; type: string; comment?: string | null },
): string | undefined {
  const moved = movedOrRetyped(current, state);
  if (moved) return moved;
  if ((current.comment ?? "") !== (state.comment ?? ""))
    return `its comment is no longer the one this stack wrote (${JSON.stringify(current.comment ?? "")})`;
  return undefined;
}

/**
 * A record this stack made with the Cloudflare provider, taken on by its id as one it created:
 * nothing is written unless it differs from what the inputs say (then it is written as they say).
 * Everything the Cloudflare provider kept (its timestamps, `meta`) is left behind.
 */
export async function adoptMadeRecord(
  api: DnsRecordsApi,
  id: string,
  current: ZoneRecord,
  news: ClaimedRecordInputs,
): Promise<Updated<ClaimedRecordOutputs>> {
  const moved = noLongerThisStacks(current, news, "created");
  if (moved) {
    throw new Error(
      `${news.type} record ${news.name} (id ${id}) is no longer this stack's: ${moved}. Run \`pulumi refresh\` ` +
        "(the stack then lets it go), then `pulumi up` to claim the name anew. Nothing was changed in the zone.",
    );
  }
  const body = desiredBody(news);
  const same =
    sameContent(news.type, body.content, current.content) &&
    current.ttl === body.ttl &&
    !current.proxied &&
    (current.priority ?? undefined) === (body.priority ?? undefined) &&
    (current.comment ?? "") === (body.comment ?? "");
  const written = same ? current : await api.replace(news.zoneId, id, body);
  return { outs: { ...news, recordId: id, ownership: "created", publishedContent: written.content } };
}
