import { readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";

/**
 * The structure CONTRIBUTING promises, checked: no import circles in the package's folders (a
 * circle means a concept without one home), and no source file in them over 300 lines (a concern
 * that grows gets a file of its own).
 */
const ROOT = path.resolve(__dirname, "../..");
const PACKAGE_FOLDERS = ["provider", "emulator", "testing"];
const MAX_LINES = 300;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .map((file) => path.join(folder, file))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts") && statSync(file).isFile());
}

/** The files `file` imports or re-exports by a relative path (`import type` included: it is a dependency too). */
export function relativeImports(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^"';]*?\bfrom\s+["'](\.[^"']*)["']/gm)].map(
    (match) => match[1],
  );
  return specifiers.map((specifier) => {
    const base = path.resolve(path.dirname(file), specifier);
    for (const candidate of [`${base}.ts`, path.join(base, "index.ts")]) {
      try {
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        // not this one
      }
    }
    throw new Error(`${path.relative(ROOT, file)} imports ${specifier}, which is no .ts file`);
  });
}

/** Every import circle (strongly connected component of more than one file, or a file importing itself). */
export function importCircles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) circles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}

describe("importCircles", () => {
  it("finds a circle through three files, and none in a chain", () => {
    const circle = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(importCircles(circle)).toEqual([["a", "b", "c"]]);
    expect(
      importCircles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", []],
        ]),
      ),
    ).toEqual([]);
  });

  it("reads type imports and re-exports as imports", () => {
    const file = path.join(ROOT, "provider/index.ts");
    const text =
      'import type { A } from "./inputs";\nexport * from "./resources";\nimport x from "node:fs";\n';
    expect(relativeImports(file, text)).toEqual([
      path.join(ROOT, "provider/inputs/index.ts"),
      path.join(ROOT, "provider/resources/index.ts"),
    ]);
  });
});

describe.each(PACKAGE_FOLDERS)("%s/", (folder) => {
  const files = sourceFiles(path.join(ROOT, folder));
  const texts = new Map(files.map((file) => [file, readFileSync(file, "utf8")]));

  it("has no import circle", () => {
    const graph = new Map(files.map((file) => [file, relativeImports(file, texts.get(file)!)]));
    const circles = importCircles(graph).map((circle) => circle.map((file) => path.relative(ROOT, file)));
    expect(circles).toEqual([]);
  });

  it(`has no source file over ${MAX_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file: path.relative(ROOT, file), lines: texts.get(file)!.split("\n").length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});

/** Every `.ts` and `.md` file of the repository's own (no dependencies, no build output). */
function repositoryFiles(): string[] {
  const skip = new Set(["node_modules", "dist", ".git", "coverage"]);
  const walk = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      if (skip.has(entry.name)) return [];
      const file = path.join(folder, entry.name);
      return entry.isDirectory() ? walk(file) : [file];
    });
  return walk(ROOT).filter((file) => /\.(ts|md)$/.test(file));
}

describe("mentions of files", () => {
  it("name files that exist: a comment or a guide that names a renamed file points nowhere", () => {
    const files = repositoryFiles();
    const names = new Set(files.map((file) => path.basename(file)));
    // A `.ts` name on its own (not `x.test.ts` or a path's end), as comments and guides cite files.
    const mention = /(?<![\w.\-/])[a-z][a-z0-9-]*\.ts\b/g;
    const documented = files.filter((file) =>
      /^(provider|testing|emulator|docs|bench|packaging)\/|^(CONTRIBUTING|README)\.md$/.test(
        path.relative(ROOT, file),
      ),
    );
    // A code fence's label in docs/policy.md names the example, not a file.
    const labels = new Set(["violation.ts"]);
    const missing = documented.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(mention)]
        .map((match) => match[0])
        .filter((name) => !names.has(name) && !labels.has(name))
        .map((name) => `${path.relative(ROOT, file)}: ${name}`),
    );
    expect(missing).toEqual([]);
  });
});
