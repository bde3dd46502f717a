/**
 * A run of this many characters of a key counts as the key: a text cut short (an excerpt of an
 * error page, a log line) may hold most of a key without holding all of it.
 */
export const KEY_FRAGMENT_LENGTH = 8;

/**
 * Replaces every occurrence of each secret in `text`, and every run of at least
 * KEY_FRAGMENT_LENGTH of its characters, in any letter case (Postal compares keys
 * case-insensitively, so an echo may differ in case). Secrets shorter than 4 characters are
 * ignored; shorter than the fragment length, only whole occurrences are replaced. A key is also
 * looked for as a page or a log would echo it: URL-encoded and JSON-escaped.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  const lower = foldAscii(text);
  // Positions of `text` that belong to some secret, found through every window of each secret.
  const covered = new Uint8Array(text.length);
  for (const needle of secrets.flatMap((secret) => (secret && secret.length >= 4 ? echoForms(secret) : []))) {
    const width = Math.min(needle.length, KEY_FRAGMENT_LENGTH);
    for (let start = 0; start + width <= needle.length; start++) {
      const window = needle.slice(start, start + width);
      for (let at = lower.indexOf(window); at >= 0; at = lower.indexOf(window, at + 1)) {
        covered.fill(1, at, at + width);
      }
    }
  }
  if (!covered.includes(1)) return text;
  let result = "";
  for (let i = 0; i < text.length; i++) {
    if (!covered[i]) result += text[i];
    else if (i === 0 || !covered[i - 1]) result += "[redacted]";
  }
  return result;
}

/**
 * Lower-cases A-Z only: keys are ASCII (key-check.ts), and folding other letters could change the
 * text's length (`İ` becomes two code units) and shift every position after it.
 */
function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/** The forms a key takes when echoed: as is, URL-encoded, JSON-escaped (`/` as `\/`). */
function echoForms(secret: string): string[] {
  const forms = [
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1).replace(/\//g, "\\/"),
  ];
  return [...new Set(forms.map(foldAscii))];
}
