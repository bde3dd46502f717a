import type { ServiceResponse } from "../http/service";
import { success } from "./envelope";
import { cloudflareErrors } from "./errors";
import { CLOUDFLARE_ID } from "./ids";
import {
  changeRecord,
  insertRecord,
  putRecord,
  RecordContext,
  removeRecord,
  rewrittenCreate,
} from "./dns-records";
import { recordJson } from "./record-json";

/**
 * `POST zones/{zone}/dns_records/batch`: `deletes`, `patches`, `puts` and `posts` (each a list),
 * executed in that order in one transaction: when one fails, no change is applied and its error
 * is the answer (Cloudflare's API reference: "all-or-nothing"). Each operation is checked as its
 * own endpoint checks it (a post as a POST, a put as a PUT, …), against the zone as the operations
 * before it left it. One request, however many records: what the account-wide limit counts.
 *
 * [chosen] At most {@link BATCH_LIMIT} operations a request, the Free plan's (paid plans allow
 * 3,500); over it, 400 with 1004 naming the limit (Cloudflare's own answer is not documented).
 */
export const BATCH_LIMIT = 200;

const KEYS = ["deletes", "patches", "puts", "posts"] as const;

export function batchRecords(context: RecordContext, json: unknown): ServiceResponse {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw cloudflareErrors.invalidBody();
  const body = json as Partial<Record<(typeof KEYS)[number], unknown>>;
  const lists = KEYS.map((key) => body[key] ?? []);
  if (lists.some((list) => !Array.isArray(list))) throw cloudflareErrors.invalidBody();
  const [deletes, patches, puts, posts] = lists as unknown[][];
  const count = deletes.length + patches.length + puts.length + posts.length;
  if (count > BATCH_LIMIT) throw cloudflareErrors.batchTooLarge(BATCH_LIMIT);

  const records = context.store.state.cloudflare.records;
  const before = structuredClone(records);
  try {
    const result = {
      deletes: deletes.map((operation) => recordJson(removeRecord(context, idOf(operation)))),
      patches: patches.map((operation) =>
        recordJson(changeRecord(context, idOf(operation), withoutId(operation))),
      ),
      puts: puts.map((operation) => recordJson(putRecord(context, idOf(operation), withoutId(operation)))),
      posts: posts.map((operation) => recordJson(insertRecord(context, rewrittenCreate(context, operation)))),
    };
    return success(result);
  } catch (error) {
    // All or nothing: the zone as it was before the batch.
    records.splice(0, records.length, ...before);
    context.store.changed();
    throw error;
  }
}

/** The record an operation names: `{ "id": "…" }`, 32 hex digits. */
function idOf(operation: unknown): string {
  const id = (operation as { id?: unknown } | null)?.id;
  if (typeof id !== "string") throw cloudflareErrors.invalidBody();
  if (!CLOUDFLARE_ID.test(id)) throw cloudflareErrors.recordNotFound();
  return id;
}

function withoutId(operation: unknown): Record<string, unknown> {
  const { id: _id, ...fields } = operation as Record<string, unknown>;
  return fields;
}
