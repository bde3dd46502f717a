/** Replaces every occurrence of each secret in `text`; secrets shorter than 4 characters are ignored. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) result = result.split(secret).join("[redacted]");
  }
  return result;
}
