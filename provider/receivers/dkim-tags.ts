/**
 * DKIM's tag=value lists (RFC 6376 §3.2), which both signatures (`DKIM-Signature:`) and key records
 * (`<selector>._domainkey.<domain>`) are written in.
 */

/** A colon-separated tag value (`h=`, `t=`, `s=`, `q=`) as its items, trimmed and lowercase. */
export const items = (value: string | undefined) =>
  (value ?? "").split(":").map((item) => item.trim().toLowerCase());

/** §3.2's tag=value list, values unfolded and trimmed; undefined when malformed or a tag repeats. */
export function parseTagList(text: string): Map<string, string> | undefined {
  const tags = new Map<string, string>();
  const specs = text.replace(/\r\n(?=[ \t])/g, "").split(";");
  for (const [index, spec] of specs.entries()) {
    if (spec.trim() === "" && index === specs.length - 1 && index > 0) continue; // a final `;`
    const equals = spec.indexOf("=");
    const name = spec.slice(0, Math.max(equals, 0)).trim();
    if (equals < 0 || !/^[A-Za-z][A-Za-z0-9_]*$/.test(name) || tags.has(name)) return undefined;
    tags.set(name, spec.slice(equals + 1).replace(/^[ \t]+|[ \t]+$/g, ""));
  }
  return tags;
}
