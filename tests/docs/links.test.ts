import { describe, expect, it } from "@jest/globals";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";

/**
 * Every relative link of the repository's documents leads somewhere: the file or folder exists,
 * and an anchor (`#section`) names a heading of the document it points into, as GitHub makes
 * heading anchors. Links to other sites are not followed (the suite reaches no network).
 */

const ROOT = path.resolve(__dirname, "../..");

/** The documents checked: README, CONTRIBUTING, CHANGELOG, the guides, and the examples' and bench's READMEs. */
function documents(): string[] {
  const guides = readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  const others = ["examples/README.md", "examples/ci/README.md", "bench/README.md"];
  return ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", ...guides, ...others].filter((file) =>
    existsSync(path.join(ROOT, file)),
  );
}

/** The text outside fenced code blocks and code spans, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/``[^`]*``|`[^`\n]*`/g, "");
}

/** The anchor GitHub gives a heading: a link's text, lowercase, punctuation dropped, spaces as hyphens. */
function headingAnchor(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a document's headings, numbered as GitHub numbers repeated ones. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const match of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = headingAnchor(match[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

interface Link {
  document: string;
  target: string;
}

function relativeLinks(document: string): Link[] {
  const text = prose(readFileSync(path.join(ROOT, document), "utf8"));
  const targets = [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]);
  return targets
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target)) // https:, mailto:, …
    .map((target) => ({ document, target }));
}

/** What is wrong with a link, or undefined when it leads somewhere. */
function problem({ document, target }: Link): string | undefined {
  const [file, anchor] = target.split("#", 2);
  const resolved = file
    ? path.resolve(path.dirname(path.join(ROOT, document)), decodeURI(file))
    : path.join(ROOT, document);
  if (!resolved.startsWith(ROOT)) return "points outside the repository";
  if (!existsSync(resolved)) return "no such file or folder";
  if (anchor === undefined) return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith(".md"))
    return "an anchor into something other than a document";
  return anchors(readFileSync(resolved, "utf8")).has(anchor)
    ? undefined
    : `no heading with the anchor #${anchor}`;
}

describe("relative links in the documents", () => {
  it.each(documents())("%s: every relative link resolves", (document) => {
    const broken = relativeLinks(document)
      .map((link) => ({ link: link.target, problem: problem(link) }))
      .filter((entry) => entry.problem !== undefined);
    expect(broken).toEqual([]);
  });
});

describe("headingAnchor (GitHub's rule)", () => {
  it.each([
    ["[Seeding](testing.md) the emulator", "seeding-the-emulator"],
    ["A zone that already has records", "a-zone-that-already-has-records"],
    ["`Domain`", "domain"],
    ["MX and sending-only domains", "mx-and-sending-only-domains"],
    ["What `destroy` gives back", "what-destroy-gives-back"],
    ["Staging, production and CI", "staging-production-and-ci"],
    ["Cloudflare's DNS-records API", "cloudflares-dns-records-api"],
  ])("%s → #%s", (heading, anchor) => {
    expect(headingAnchor(heading)).toBe(anchor);
  });
});
