import { spawn, spawnSync } from "node:child_process";
import * as path from "node:path";
import type { SpfErrorKind } from "../../provider/dns";

/**
 * pyspf (Debian's python3-spf, the reference SPF implementation) driven through
 * `pyspf-check.py`, for the differential test. Debian installs it for the system's Python
 * (/usr/bin/python3), which may not be the `python3` first on PATH.
 */

const HELPER = path.join(__dirname, "pyspf-check.py");
const PYTHONS = ["/usr/bin/python3", "python3"];

/** A Python that can import pyspf with py3dns, or why there is none. */
export function pyspfHere(): { available: true; python: string } | { available: false; reason: string } {
  const probe = 'import sys; sys.modules["dns"] = None; import DNS, spf; print(spf.__version__)';
  for (const python of PYTHONS) {
    const run = spawnSync(python, ["-c", probe], { encoding: "utf8", timeout: 30_000 });
    if (run.status === 0) return { available: true, python };
  }
  return {
    available: false,
    reason:
      "pyspf with py3dns cannot be imported by any of " +
      `${PYTHONS.join(", ")} (Debian: apt-get install python3-spf python3-dns)`,
  };
}

export interface PyspfCase {
  id: string;
  record: string;
  domain: string;
  ip: string;
  helo: string;
}

/** pyspf's result for each case, every query sent to 127.0.0.1:`port`. */
export async function runPyspf(
  python: string,
  port: number,
  cases: PyspfCase[],
): Promise<Map<string, { result: string; explanation: string }>> {
  const child = spawn(python, [HELPER], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  // A lookup the test's DNS leaves unanswered would take this long; none does (they fail at once).
  child.stdin.end(JSON.stringify({ server: "127.0.0.1", port, timeout: 20, cases }));
  const status = await exited;
  if (status !== 0) throw new Error(`pyspf-check.py exited with ${status}: ${stderr}`);
  const answer = JSON.parse(stdout) as {
    unavailable?: string;
    results?: { id: string; result: string; explanation: string }[];
  };
  if (!answer.results) throw new Error(`pyspf-check.py: ${answer.unavailable}`);
  return new Map(answer.results.map(({ id, ...result }) => [id, result]));
}

/** pyspf's permerror explanations (spf.py 2.0.14), by the rule of RFC 7208 they apply. */
const CLASSES: [RegExp, SpfErrorKind][] = [
  [/Too many DNS lookups|More than \d+ DNS lookups/, "lookup-limit"],
  [/Void lookup limit/, "void-limit"],
  [/More than \d+ MX records returned/, "mx-limit"],
  [/No valid SPF record for included domain/, "include-none"],
  [/redirect domain has no SPF record/, "redirect-none"],
  [/Two or more type TXT spf records/, "multiple-records"],
  [/include has trivial recursion/, "loop"],
  [
    /Unknown mechanism|Unknown qualifier|Invalid IP[46]|Invalid domain found|invalid-macro-char|Unknown Macro|CIDR|Invalid all mechanism|MUST appear at most once|empty domain|exp has empty|implicit exists|allowed in exp= text only|syntax error|Non-ascii|Missing IP4|Use the ip4 mechanism/,
    "syntax",
  ],
];

/** `ok` (any result but an error), `temperror`, or `permerror:<kind>` (`permerror:?` for a message not classed). */
export function pyspfVerdict({ result, explanation }: { result: string; explanation: string }): string {
  if (result === "temperror") return "temperror";
  if (result !== "permerror") return "ok";
  const kind = CLASSES.find(([pattern]) => pattern.test(explanation))?.[1];
  return `permerror:${kind ?? `? (${explanation})`}`;
}
