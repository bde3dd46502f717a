/**
 * Why a key cannot be sent in an HTTP header, or undefined when it can. Keys are printable ASCII
 * (Postal's are 24 letters and digits); what else turns up is a pasted line break, a NUL or a
 * character from another alphabet. Node refuses such a header before sending, which would
 * otherwise look like a failed connection and be retried. The key itself is never in the text.
 */
export function keyProblem(key: string): string | undefined {
  const at = (index: number) => `character ${index + 1} of ${key.length}`;
  if (/^\s/.test(key) || /\s$/.test(key)) {
    const index = /^\s/.test(key) ? 0 : key.length - 1;
    const where = index === 0 ? "starts" : "ends";
    return `${where} with ${describeCharacter(key.charCodeAt(index))} (${at(index)}): remove it (a copy and paste or \`echo\` often adds a line break)`;
  }
  for (let index = 0; index < key.length; index++) {
    const code = key.charCodeAt(index);
    if (code < 0x21 || code > 0x7e) {
      return `holds ${describeCharacter(code)} (${at(index)}), which an HTTP header cannot carry: set it again without it (keys are letters, digits and punctuation)`;
    }
  }
  return undefined;
}

function describeCharacter(code: number): string {
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  if (code === 0x0a || code === 0x0d) return `a line break (${hex})`;
  if (code === 0x20) return "a space";
  if (code === 0x09) return "a tab";
  if (code === 0) return "a NUL character (U+0000)";
  if (code < 0x20 || code === 0x7f) return `a control character (${hex})`;
  return `a character outside ASCII (${hex})`;
}
