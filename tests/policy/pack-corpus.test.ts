import { promises as fs } from "node:fs";
import {
  analyzeAll,
  configure,
  configureStack,
  Finding,
  installPack,
  InstalledPack,
  Pack,
  startPack,
} from "../support/policy-pack-host";
import { CORPUS, STACKS } from "../support/pack-corpus";
import { Mode, Posture, World } from "../support/policy-postures";

/**
 * The ready pack, started as the engine starts it and driven over gRPC
 * (tests/support/policy-pack-host.ts) with the engine's encodings (unknown sentinels, secret
 * wrappers, parents, per-stack config), over the corpus of postures in tests/support/pack-corpus.ts:
 * each in a preview (unknowns where one has them) and in an update (all known), with the exact
 * set of answers. Set PACK_CORPUS_TABLE=<file> to write the table of expected and got answers.
 */

const last = (urn: string) => urn.split("::").pop();
const rule = (policy: string) => policy.replace(/^email-/, "");
const key = (f: Finding) =>
  f.level === "n/a" ? `n/a ${rule(f.policy)} ${last(f.urn)}` : `${rule(f.policy)} ${f.level} ${last(f.urn)}`;

let installed: InstalledPack;
const packs = new Map<string, Pack>();
const table: string[] = ["| posture | stack | mode | expected | got |", "| --- | --- | --- | --- | --- |"];

/** The pack process for a row's stack: started, told its stack, and configured, once. */
async function packFor(stackKey: string): Promise<Pack> {
  if (!packs.has(stackKey)) {
    const { stack, config } = STACKS[stackKey];
    const pack = await startPack(installed, stack);
    packs.set(stackKey, pack);
    await configureStack(pack, stack);
    if (config) await configure(pack, config);
  }
  return packs.get(stackKey)!;
}

/**
 * `@pulumi/policy`'s own answer for a rule of one resource type over a resource of another (the
 * rule says its type, so the resource's properties are not even decoded): it says nothing of the
 * posture, so the corpus's answers leave it out, and one test below shows it.
 */
const OTHER_TYPE = /^Policy only applies to resources of type '/;
const ofAnotherType = (f: Finding) => f.level === "n/a" && OTHER_TYPE.test(f.text);

/** One posture in one mode, as the engine asks: Analyze on each resource, then AnalyzeStack. */
async function judge(
  posture: Posture,
  mode: Mode,
): Promise<{ got: string[]; texts: string[]; all: Finding[] }> {
  const { stack } = STACKS[posture.stack];
  const resources = posture.resources(new World(stack, mode));
  const all = await analyzeAll(await packFor(posture.stack), resources, stack);
  const findings = all.filter((f) => !ofAnotherType(f));
  return { got: findings.map(key).sort(), texts: findings.map((f) => f.text), all };
}

beforeAll(async () => {
  installed = await installPack();
}, 60_000);

afterAll(async () => {
  for (const pack of packs.values()) pack.stop();
  await installed.remove();
  if (process.env.PACK_CORPUS_TABLE)
    await fs.writeFile(process.env.PACK_CORPUS_TABLE, `${table.join("\n")}\n`);
});

it("the corpus: at least 25 postures, good and bad, over every pack", () => {
  expect(new Set(CORPUS.map((p) => `${p.name} @ ${p.stack}`)).size).toBe(CORPUS.length);
  expect(CORPUS.length).toBeGreaterThanOrEqual(25);
  expect(CORPUS.filter((p) => p.expect.length === 0).length).toBeGreaterThanOrEqual(5);
  expect(CORPUS.filter((p) => p.expect.some((a) => !a.startsWith("n/a"))).length).toBeGreaterThanOrEqual(20);
  expect(new Set(CORPUS.map((p) => p.stack))).toEqual(new Set(Object.keys(STACKS)));
});

it("a rule of one resource type is not run on the others: @pulumi/policy says so without decoding them", async () => {
  const { all } = await judge(CORPUS[0], "update");
  const skipped = all.filter(ofAnotherType).map((f) => `${rule(f.policy)} ${last(f.urn)}`);
  // The Domain and its children: the route rule skips all of them, the alignment rule all but the Domain.
  expect(skipped.filter((s) => s.startsWith("route-mode ")).length).toBeGreaterThan(0);
  expect(skipped).not.toContain("dmarc-alignment primary");
  expect(skipped).toContain("dmarc-alignment primary-spf");
  expect(new Set(skipped.map((s) => s.split(" ")[0]))).toEqual(new Set(["route-mode", "dmarc-alignment"]));
});

describe.each(CORPUS)("$name ($stack)", (posture) => {
  it.each(["preview", "update"] as const)(
    "%s",
    async (mode) => {
      const expected = [...((mode === "preview" && posture.preview) || posture.expect)].sort();
      const { got, texts } = await judge(posture, mode);
      const cell = (answers: string[]) => answers.join("; ") || "none";
      const stack = STACKS[posture.stack];
      table.push(
        `| ${posture.name} | ${stack.stack}${stack.config ? " + config" : ""} | ${mode} | ${cell(expected)} | ${cell(got)} |`,
      );
      expect(got).toEqual(expected);
      const says = [...(posture.says ?? []), ...((mode === "preview" && posture.previewSays) || [])];
      for (const words of says) expect(texts.join("\n")).toContain(words);
      // Every answer says why: a violation its message, a "not applicable" its reason.
      for (const text of texts) expect(text.length).toBeGreaterThan(20);
    },
    60_000,
  );
});
