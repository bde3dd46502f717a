import { FaultInjector, parseFaultRule } from "../../emulator/http/faults";

describe("FaultInjector", () => {
  it("matches endpoints by glob: `*` within a segment, `**` across", () => {
    const faults = new FaultInjector();
    faults.set([{ endpoints: "routes/*, domains/create", rate503: 1 }]);
    expect(faults.decide("routes/list").outcome).toBe("503");
    expect(faults.decide("domains/create").outcome).toBe("503");
    expect(faults.decide("domains/list").outcome).toBe("pass");
    expect(faults.decide("cloudflare:dns_records.create").outcome).toBe("pass");
    faults.set([{ endpoints: "**", dropRate: 1 }]);
    expect(faults.decide("cloudflare:dns_records.create").outcome).toBe("drop");
  });

  it("applies a rule with `times` to that many requests only, then the next rule", () => {
    const faults = new FaultInjector();
    faults.set([
      { endpoints: "domains/create", commitThenDropRate: 1, times: 2 },
      { endpoints: "domains/*", latencyMs: 5 },
    ]);
    const outcomes = Array.from({ length: 4 }, () => faults.decide("domains/create"));
    expect(outcomes.map((d) => d.outcome)).toEqual(["commit-then-drop", "commit-then-drop", "pass", "pass"]);
    expect(outcomes[3].latencyMs).toBe(5);
  });

  it("spreads rates as asked, repeatably for a seed", () => {
    const draw = (seed: number) => {
      const faults = new FaultInjector();
      faults.set([{ endpoints: "**", rate429: 0.1, rate503: 0.1, dropRate: 0.1 }], seed);
      return Array.from({ length: 3000 }, () => faults.decide("x").outcome);
    };
    const outcomes = draw(3);
    expect(draw(3)).toEqual(outcomes);
    for (const outcome of ["429", "503", "drop"]) {
      const share = outcomes.filter((o) => o === outcome).length / outcomes.length;
      expect(share).toBeGreaterThan(0.07);
      expect(share).toBeLessThan(0.13);
    }
  });

  it("refuses rules that cannot mean anything, naming the setting", () => {
    const faults = new FaultInjector();
    expect(() => faults.set([{ endpoints: "", rate429: 0.1 }])).toThrow(
      "`endpoints` must be a non-empty glob",
    );
    expect(() => faults.set([{ endpoints: "*", rate429: 0.6, rate503: 0.6 }])).toThrow(
      "add up to more than 1",
    );
    expect(() => faults.set([{ endpoints: "*", times: 0 }])).toThrow("`times` must be a whole number");
  });

  it("parses the command-line form", () => {
    expect(parseFaultRule("domains/create:commitThenDropRate=0.5,times=1")).toEqual({
      endpoints: "domains/create",
      commitThenDropRate: 0.5,
      times: 1,
    });
    expect(() => parseFaultRule("nocolon")).toThrow("expected ENDPOINTS:key=value");
  });
});
