import { formatPolicyScale, measurePolicyScale, policyStack } from "../../bench/policy-scale";

/** The bench's policy rows: the stack it builds, that the rules ran over it, and how it is shown. */
describe("bench: the policy pack over N domains", () => {
  it("builds 7 resources per domain and finds the one violation each has (no DMARC)", async () => {
    expect(policyStack(3)).toHaveLength(21);
    const [figures] = await measurePolicyScale([3], { rounds: 2 });
    expect(figures).toMatchObject({ domains: 3, resources: 21, violations: 3, rounds: 2 });
    expect(figures.ratio).toBeGreaterThan(0);
    for (const ms of [figures.coldMs, figures.warmMs, figures.floorMs]) expect(ms).toBeGreaterThan(0);
  });

  it("shows each size with its ratio to the floor, and the target at 1,000", () => {
    const figures = (domains: number, ratio: number) => ({
      domains,
      resources: domains * 7,
      coldMs: 80,
      warmMs: 60,
      floorMs: 20,
      ratio,
      rounds: 5,
      violations: domains,
    });
    const lines = formatPolicyScale([figures(10, 2.9), figures(1000, 2.9), figures(1000, 3.1)]).join("\n");
    expect(lines).toContain("Floor: the same calls with no policy. No request is made.");
    // The ratio is the paired median, not warm over floor (3.00×).
    expect(lines).toMatch(/^10 +70 +80 ms +60 ms +20 ms +2\.90× +10 *$/m);
    expect(lines).toMatch(/^1000 +7000 .* 2\.90× +1000 +ok$/m);
    expect(lines).toMatch(/^1000 +7000 .* 3\.10× +1000 +MISSED$/m);
  });
});
