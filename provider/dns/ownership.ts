import { createHash } from "node:crypto";

/**
 * Which stack made a DNS record. Every record a stack publishes carries a mark in its Cloudflare
 * comment, `pulumi <project>/<stack>`, at the start, followed by a description. A record without
 * such a mark was made by someone else (by hand, another tool); a record with another stack's mark
 * belongs to that stack (another stage of the same project, say). Only records with this stack's
 * own mark are "made by this stack": the others are never changed or deleted without the user's
 * choice (see existing-records.ts).
 */

/** Cloudflare's limit for comments on free plans. */
export const MAX_COMMENT_LENGTH = 100;

/** Who made a record, as its comment says. */
export type RecordOwner =
  { kind: "this-stack" } | { kind: "other-stack"; stack: string } | { kind: "unmarked" };

/** Names longer than this are shortened in the mark, so that the mark always fits a comment whole. */
const MAX_NAME_IN_MARK = 40;

/**
 * The mark of the stack `project/stack`. A project or stack name over 40 characters is shortened
 * to its start and a hash of the whole (`long-project-name…~1a2b3c4d`): the mark (at most 88
 * characters) then always fits Cloudflare's 100, and two long names that share their start still
 * make different marks.
 */
export function ownershipMark(project: string, stack: string): string {
  return `pulumi ${shortName(project)}/${shortName(stack)}`;
}

function shortName(name: string): string {
  if (name.length <= MAX_NAME_IN_MARK) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_NAME_IN_MARK - 9)}~${hash}`;
}

/**
 * The comment of a record this stack publishes: the mark, then the description (`email spf` by
 * default, or the user's own), cut to Cloudflare's 100 characters. The mark comes first so that a
 * description cut short never loses it.
 */
export function markedComment(project: string, stack: string, description: string): string {
  const mark = ownershipMark(project, stack);
  const comment = description ? `${mark}: ${description}` : mark;
  if (comment.length <= MAX_COMMENT_LENGTH) return comment;
  // Never between the two halves of a character outside the BMP: a lone surrogate is not UTF-8.
  const kept = comment.slice(0, MAX_COMMENT_LENGTH - 1).replace(/[\uD800-\uDBFF]$/, "");
  return `${kept}…`;
}

/**
 * Who made a record with `comment` (null or "" when it has none), seen from `project/stack`. A
 * stack renamed with `pulumi stack rename` names what it was called (`formerStacks`): records
 * still marked with one of those names are its own too.
 */
export function recordOwner(
  comment: string | null | undefined,
  project: string,
  stack: string,
  formerStacks: readonly string[] = [],
): RecordOwner {
  for (const former of formerStacks) {
    if (markedBy(comment, project, former)) return { kind: "this-stack" };
  }
  if (markedBy(comment, project, stack)) return { kind: "this-stack" };
  const marked = /^pulumi ([^\s/:]+)\/([^\s:]+)(?::|$)/.exec(comment ?? "");
  return marked ? { kind: "other-stack", stack: `${marked[1]}/${marked[2]}` } : { kind: "unmarked" };
}

/** Whether `comment` carries the mark of `project/stack`. */
function markedBy(comment: string | null | undefined, project: string, stack: string): boolean {
  const text = comment ?? "";
  const mark = ownershipMark(project, stack);
  if (text === mark || text.startsWith(`${mark}:`)) return true;
  // A comment cut at the limit keeps what fit of `<mark>: <description>`, then "…": with a mark of
  // 99 characters or more, the mark alone, or only its start (compared as cut).
  return text.length === MAX_COMMENT_LENGTH && text.endsWith("…") && `${mark}:`.startsWith(text.slice(0, -1));
}
