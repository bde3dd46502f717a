/**
 * Replaces every occurrence of each secret in `text`, in any letter case (Postal compares keys
 * case-insensitively, so an echo may differ in case). Secrets shorter than 4 characters are ignored.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    const pattern = new RegExp(secret.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi");
    result = result.replace(pattern, "[redacted]");
  }
  return result;
}
