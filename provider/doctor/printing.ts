import type { DiagnosisFacts } from "../verification/diagnosis-facts";
import { printable } from "../verification/report-text";

/**
 * What the doctor prints, made safe to print. Everything printed
 * is someone else's text: the service's, what DNS serves, the names in the records file. A
 * terminal or a CI log acts on control characters (clears the screen, makes links, colours) and
 * shows text reordered by bidi controls, so every line goes through `printable()` (the one home
 * of that escape, verification/report-text.ts): in the table as `\u…` escapes, in `--json` as the same
 * escapes, which JSON reads back as the very characters (JSON.stringify escapes C0 controls
 * itself, but not DEL, C1 controls or bidi controls).
 */

/** The names in the facts escaped: the diagnosis lays them out as they are. */
export function printableFacts(facts: DiagnosisFacts): DiagnosisFacts {
  const server = <T extends { server: string }>(answer: T): T => ({
    ...answer,
    server: printable(answer.server),
  });
  return {
    ...facts,
    expected: {
      ...facts.expected,
      name: printable(facts.expected.name),
      type: printable(facts.expected.type),
    },
    authoritative: facts.authoritative.map(server),
    ...(facts.recursive ? { recursive: server(facts.recursive) } : {}),
  };
}

/**
 * Text as the doctor prints it: each line through `printable()`, the line breaks kept. For JSON
 * too: outside its strings a JSON text has no character `printable()` changes but the line breaks,
 * and in them a `\u…` escape is the character itself to whoever parses it.
 */
export function printableLines(text: string): string {
  return text.split("\n").map(printable).join("\n");
}
