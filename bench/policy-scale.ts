import type { Policies } from "@pulumi/policy";
import { emailDeliveryPolicies } from "../provider/policy";
import { domainSettings } from "../provider/resources/domain-settings";
import { TYPE_TOKENS } from "../provider/resources/type-tokens";
import { AnalyzedResource, analyzeResource, analyzeStack, urnOf } from "../tests/support/policy-analysis";
import { median } from "./setup";
import { table } from "./table";

/**
 * The policy pack over a stack of N domains (each a Domain, its five records and a route), through
 * `@pulumi/policy`'s own handlers as the engine calls them: Analyze once per resource, then
 * AnalyzeStack once. The floor is the same calls with no policy at all: what the engine and
 * `@pulumi/policy` spend on a resource whatever the rules. Cold is the first pass in this process;
 * then each round makes a warm pass and a floor pass (which goes first alternates), so that both
 * share the machine's moments (and the garbage collector's), and the ratio is the median of each
 * warm pass over the floor pass of its round. A policy makes no request: time is its only cost.
 * Target: {@link POLICY_RATIO_TARGET} at 1,000 domains (on a busy machine, rounds vary by ±30%).
 */
export interface PolicyScaleFigures {
  domains: number;
  resources: number;
  /** Milliseconds for every Analyze and the AnalyzeStack, with the package's policies: the first pass. */
  coldMs: number;
  /** The median of the warm passes. */
  warmMs: number;
  /** The same calls with no policy (the median of the floor passes). */
  floorMs: number;
  /** The median of each warm pass over the floor pass beside it. */
  ratio: number;
  /** Warm and floor passes made. */
  rounds: number;
  /** Violations found (every domain lacks DMARC, so N of them). */
  violations: number;
}

export interface PolicyScaleOptions {
  /**
   * The package's policies: `npm run bench` passes the installed package's (the compiled pack users
   * run), tests the sources'.
   * @default the sources' `emailDeliveryPolicies`
   */
  policies?: () => Policies;
  /** @default 5 */
  rounds?: number;
}

/** The most the pack may cost at 1,000 domains, as a multiple of the floor. */
export const POLICY_RATIO_TARGET = 3;

const ZONE = "023e105f4ecef8ad9ca31a8372d0c353";

/** A stack of `domains` domains as a preview after `up` shows it (names and contents known). */
export function policyStack(domains: number): AnalyzedResource[] {
  const resources: AnalyzedResource[] = [];
  for (let i = 0; i < domains; i++) {
    const name = `m${i}.example.com`;
    const parent = urnOf(TYPE_TOKENS.Domain, `d${i}`);
    resources.push({
      type: TYPE_TOKENS.Domain,
      name: `d${i}`,
      urn: parent,
      props: { ...domainSettings({ name, cloudflare: { zoneId: ZONE } }) },
    });
    const records: [string, string, string, string][] = [
      ["spf", "TXT", name, '"v=spf1 a mx include:spf.mail.example ~all"'],
      ["dkim", "TXT", `postal-abc._domainkey.${name}`, '"v=DKIM1; t=s; h=sha256; p=MIIB"'],
      ["return-path", "CNAME", `psrp.${name}`, "rp.mail.example"],
      ["mx-0", "MX", name, "mx1.mail.example"],
      ["mx-1", "MX", name, "mx2.mail.example"],
    ];
    for (const [suffix, type, recordName, content] of records) {
      resources.push({
        type: TYPE_TOKENS.DnsRecord,
        name: `d${i}-${suffix}`,
        parent,
        props: { zoneId: ZONE, name: recordName, type, content, ttl: 300 },
      });
    }
    resources.push({
      type: TYPE_TOKENS.Route,
      name: `r${i}`,
      props: { name: "support", domainId: i, mode: "Endpoint" },
    });
  }
  return resources;
}

async function pass(
  policies: Policies,
  resources: AnalyzedResource[],
): Promise<{ ms: number; violations: number }> {
  const started = performance.now();
  let violations = 0;
  for (const resource of resources)
    violations += (await analyzeResource(policies, resource)).diagnostics.length;
  violations += (await analyzeStack(policies, resources)).diagnostics.length;
  return { ms: performance.now() - started, violations };
}

export async function measurePolicyScale(
  sizes: number[],
  { policies: make = emailDeliveryPolicies, rounds = 5 }: PolicyScaleOptions = {},
): Promise<PolicyScaleFigures[]> {
  const figures: PolicyScaleFigures[] = [];
  for (const domains of sizes) {
    const resources = policyStack(domains);
    const policies = make();
    const cold = await pass(policies, resources);
    await pass([], resources);
    const warm: number[] = [];
    const floor: number[] = [];
    let violations = 0;
    // Each round a warm pass and a floor pass, in turn first: neither always follows the other's garbage.
    for (let round = 0; round < rounds; round++) {
      if (round % 2) floor.push((await pass([], resources)).ms);
      const measured = await pass(policies, resources);
      warm.push(measured.ms);
      violations = measured.violations;
      if (round % 2 === 0) floor.push((await pass([], resources)).ms);
    }
    figures.push({
      domains,
      resources: resources.length,
      coldMs: cold.ms,
      warmMs: median(warm),
      floorMs: median(floor),
      ratio: median(warm.map((ms, round) => ms / floor[round])),
      rounds,
      violations,
    });
  }
  return figures;
}

export function formatPolicyScale(figures: PolicyScaleFigures[]): string[] {
  return [
    "",
    "The policy pack over N domains (a Domain, 5 records and a route each): Analyze per resource, then AnalyzeStack,",
    "through @pulumi/policy's handlers. Floor: the same calls with no policy. No request is made. Warm and floor",
    "are medians of passes made in turn; warm / floor is the median of each warm pass over the floor pass beside it.",
    table(
      [
        "N",
        "resources",
        "cold",
        "warm",
        "floor",
        "warm / floor",
        "violations",
        `≤ ${POLICY_RATIO_TARGET}× at 1,000`,
      ],
      figures.map((f) => [
        String(f.domains),
        String(f.resources),
        `${f.coldMs.toFixed(0)} ms`,
        `${f.warmMs.toFixed(0)} ms`,
        `${f.floorMs.toFixed(0)} ms`,
        `${f.ratio.toFixed(2)}×`,
        String(f.violations),
        f.domains < 1000 ? "" : f.ratio <= POLICY_RATIO_TARGET ? "ok" : "MISSED",
      ]),
    ),
  ];
}
