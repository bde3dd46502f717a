import { summarizeCold } from "../../bench/cold-start";
import { listsSaved, refreshIdeal, StepResult } from "../../bench/lifecycle";
import { BenchResults, formatReport, verdict } from "../../bench/report";
import { CommandCounts, idealZoneReads, mostInWindow, ZoneScaleResult } from "../../bench/zone-scale";
import { formatAccountLimit, formatZoneScale, metTargets } from "../../bench/zone-scale-report";

/** The bench's counting and report code on made-up figures: no emulator, no timing asserted. */
const step = (name: string, requests: Record<string, number>, ideal: Record<string, number>): StepResult => ({
  step: name,
  requests,
  ideal,
  attempts: 0,
  retries: 0,
  calls: 0,
  ms: 1,
});

describe("bench report", () => {
  const ideal = refreshIdeal(10, 50);

  it("a refresh's ideal counts one check per verification and one read per record beside the lists", () => {
    expect(ideal).toEqual({
      "domains/list": 1,
      "routes/list": 1,
      "domains/check": 10,
      "cloudflare:dns_records.get": 50,
    });
  });

  it("a refresh with 2 lists per kind is ok, with 3 it is missed; extra checks or record reads miss", () => {
    expect(verdict(step("refresh", ideal, ideal))).toBe("ideal");
    expect(verdict(step("refresh", { ...ideal, "domains/list": 2, "routes/list": 2 }, ideal))).toBe("ok");
    expect(verdict(step("refresh", { ...ideal, "routes/list": 3 }, ideal))).toBe("MISSED");
    expect(verdict(step("refresh", { ...ideal, "domains/check": 11 }, ideal))).toBe("MISSED");
    expect(verdict(step("refresh (host)", { ...ideal, "domains/create": 1 }, ideal))).toBe("MISSED");
  });

  it("other steps must be ideal", () => {
    expect(verdict(step("update", { "routes/update": 10 }, { "routes/update": 10 }))).toBe("ideal");
    expect(verdict(step("update", { "routes/update": 11 }, { "routes/update": 10 }))).toBe("MISSED");
  });

  it("lists reused are counted against one list per read, as a saving", () => {
    const refresh = step("refresh", { ...ideal, "domains/list": 1, "routes/list": 2 }, ideal);
    // 10 domain reads (1 list each) + 100 route reads (2 lists each), 3 sent.
    expect(listsSaved(refresh, 10, 100)).toEqual({ unshared: 210, sent: 3 });
  });

  it("cold-start medians are per mode, load + first call summed per sample", () => {
    const sample = (loadMs: number, firstCallMs: number) => ({
      bootMs: 30,
      sdkMs: 0,
      loadMs,
      firstCallMs,
      processMs: 100,
    });
    const figures = summarizeCold("provider", [sample(100, 30), sample(300, 10), sample(200, 20)]);
    expect(figures).toMatchObject({ loadMedianMs: 200, firstCallMedianMs: 20, totalMedianMs: 220 });
  });

  it("every verdict column names its target", () => {
    const timed = (medianMs: number) => ({ medianMs, p90Ms: medianMs });
    const results: BenchResults = {
      generatedAt: "2026-01-01T00:00:00.000Z",
      command: "npm run bench",
      machine: { node: "v20", platform: "linux x64", cpus: 2, cpuModel: "cpu" },
      durationMs: 1000,
      lifecycle: [{ routes: 100, domains: 10, steps: [step("refresh", ideal, ideal)] }],
      overhead: [
        {
          operation: "route update (routes/update)",
          samples: 1,
          provider: timed(2),
          got: timed(1.5),
          nodeHttp: timed(1),
          ratioNodeHttp: 2,
          ratioGot: 1.33,
        },
      ],
      verification: [],
      providerTexts: [],
      stateSize: [],
    };
    const report = formatReport(results);
    expect(report).toContain("verdict (≤ 1.5×)");
    expect(report).toContain("verdict (≤ 1.25×)");
    expect(report).toMatch(/Target: refresh ≤ 2 lists per kind/);
    expect(report).toMatch(
      /route update \(routes\/update\) +1 +2\.000 +1\.500 +1\.000 +1\.000 ms +2\.00 +MISSED +1\.33 +MISSED/,
    );
    // The lists-reused table has no verdict.
    expect(report).toMatch(/100 +refresh +110 +210 +2 +208/);
  });
});

describe("zone-scale report", () => {
  const counts = (fields: Partial<CommandCounts> & Pick<CommandCounts, "command">): CommandCounts => ({
    cloudflareReads: [],
    idealCloudflareReads: 0,
    cloudflareOther: 0,
    cloudflareReadsById: 0,
    cloudflareTotal: 0,
    cloudflareMostIn5Minutes: 0,
    serviceLists: 0,
    serviceListed: 0,
    serviceOther: 0,
    ...fields,
  });
  const result = (domains: number, commands: CommandCounts[]): ZoneScaleResult => ({
    domains,
    otherRecords: 0,
    parallel: 8,
    commands,
    errors: [],
  });

  it("counts the most requests in any window, and marks a command of 1,000 domains over 1,000 in 5 minutes", () => {
    const minute = 60_000;
    expect(mostInWindow([], 5 * minute)).toBe(0);
    expect(mostInWindow([0, 1, 2], 5 * minute)).toBe(3);
    // Two bursts 5 minutes apart never share a window; one a minute later does.
    expect(mostInWindow([0, 1, 2, 5 * minute, 5 * minute + 1], 5 * minute)).toBe(3);
    expect(mostInWindow([0, 1, 2, 4 * minute, 4 * minute + 1], 5 * minute)).toBe(5);
    const up = counts({ command: "up", cloudflareTotal: 5002, cloudflareMostIn5Minutes: 5002 });
    const noChange = counts({
      command: "up, no change",
      cloudflareTotal: 102,
      cloudflareMostIn5Minutes: 102,
    });
    const lines = formatAccountLimit([result(1000, [up, noChange])]);
    // Beside each, the ideal at P = 8: 625 batches of 8 records, and the zone's reads (none given here).
    expect(lines.find((line) => line.startsWith("1000  8  up "))).toMatch(
      /5002 +625 +5002 +417% +no: 429 +MISSED$/,
    );
    expect(lines.find((line) => line.includes("up, no change"))).toMatch(/102 +0 +102 +9% +yes +yes$/);
  });

  it("the ideal read is the cheaper of the whole zone and each domain alone", () => {
    expect(idealZoneReads(0, 1)).toBe(1);
    expect(idealZoneReads(6000, 1000)).toBe(61);
    expect(idealZoneReads(20_000, 1)).toBe(2);
  });

  it("holds reads to 1.25 × the ideal per program run, and one domain to 4", () => {
    const within = counts({ command: "up", cloudflareReads: [5, 5], idealCloudflareReads: 4 });
    expect(metTargets(result(10, [within]), within)).toBe("yes");
    const over = counts({ command: "up", cloudflareReads: [5, 6], idealCloudflareReads: 4 });
    expect(metTargets(result(10, [over]), over)).toBe("missed: reads");
    const one = counts({ command: "preview", cloudflareReads: [5], idealCloudflareReads: 5 });
    expect(metTargets(result(1, [one]), one)).toBe("missed: reads (one domain)");
    // Among others' records, one domain is held to 4 reads, not to the ratio.
    const big = counts({ command: "up, no change", cloudflareReads: [4, 4], idealCloudflareReads: 2 });
    expect(metTargets({ ...result(1, [big]), otherRecords: 20_000 }, big)).toBe("yes");
  });

  it("holds lists to 4 per up (objects ≤ 2N), 2 per refresh and none elsewhere, and a no-change up of 1,000 domains under 300 requests", () => {
    const up = counts({ command: "up", serviceLists: 5 });
    expect(metTargets(result(10, [up]), up)).toBe("missed: lists");
    const refresh = counts({ command: "refresh, one at a time", serviceLists: 3 });
    expect(metTargets(result(10, [refresh]), refresh)).toBe("missed: lists");
    // Lists that grow with the square of the stack: more objects than 2 a domain.
    const square = counts({ command: "up", serviceLists: 4, serviceListed: 21 });
    expect(metTargets(result(10, [square]), square)).toBe("missed: objects listed");
    expect(
      metTargets(
        result(10, [counts({ command: "up", serviceLists: 4, serviceListed: 20 })]),
        counts({ command: "up", serviceLists: 4, serviceListed: 20 }),
      ),
    ).toBe("yes");
    // None at all where nothing is created or read.
    for (const command of ["preview", "destroy", "up, no change"]) {
      const listed = counts({ command, serviceLists: 1 });
      expect(metTargets(result(10, [listed]), listed)).toBe("missed: lists");
    }
    const same = counts({ command: "up, no change", cloudflareReads: [150, 150], idealCloudflareReads: 150 });
    expect(metTargets(result(1000, [same]), same)).toBe("missed: requests");
    const cheap = counts({ command: "up, no change", cloudflareReads: [61, 61], idealCloudflareReads: 61 });
    expect(metTargets(result(1000, [cheap]), cheap)).toBe("yes");
  });

  it("prints a row per command with the ideal beside the reads", () => {
    const text = formatZoneScale([
      result(10, [
        counts({
          command: "up",
          cloudflareReads: [1, 1],
          idealCloudflareReads: 1,
          serviceLists: 2,
          serviceListed: 15,
        }),
      ]),
    ]).join("\n");
    expect(text).toMatch(/^10\s+0\s+up\s+1 \+ 1\s+1\s+1\.00\s+0\s+2\s+15\s+1\.5\s+yes$/m);
  });
});
