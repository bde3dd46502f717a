import { FaultInjector, FaultRule, parseFaultRule } from "../../emulator/http/faults";
import { RequestLog } from "../../emulator/http/request-log";
import { RunningService, ServiceDefinition, startHttpService } from "../../emulator/http/service";

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

  it("refuses a latency Node's timers would cut to 1 ms, and any over 10 minutes", () => {
    const faults = new FaultInjector();
    for (const latencyMs of [1e12, 2 ** 31, Infinity, 600_001]) {
      expect(() => faults.set([{ endpoints: "**", latencyMs }])).toThrow(
        "fault rule: `latencyMs` must be a number from 0 to 600000 (10 minutes)",
      );
    }
    faults.set([{ endpoints: "**", latencyMs: 600_000 }]);
    expect(faults.decide("x").latencyMs).toBe(600_000);
  });

  it("refuses a Retry-After that would not be sent as whole seconds, or is over a day", () => {
    const faults = new FaultInjector();
    for (const retryAfterSeconds of [0.5, 1e21, Infinity, 86_401]) {
      expect(() => faults.set([{ endpoints: "**", rate429: 1, retryAfterSeconds }])).toThrow(
        "fault rule: `retryAfterSeconds` must be a whole number from 0 to 86400 (a day)",
      );
    }
    faults.set([{ endpoints: "**", rate429: 1, retryAfterSeconds: 86_400 }]);
    expect(faults.decide("x").retryAfterSeconds).toBe(86_400);
  });

  it("refuses a rule with a setting it does not know, or one that is not an object", () => {
    const faults = new FaultInjector();
    expect(() => faults.set([{ endpoints: "**", rate249: 1 } as unknown as FaultRule])).toThrow(
      "fault rule: unknown setting `rate249` (known: endpoints, latencyMs, rate429,",
    );
    expect(() => faults.set([null as unknown as FaultRule])).toThrow("fault rule: must be an object");
  });

  it("parses the command-line form", () => {
    expect(parseFaultRule("domains/create:commitThenDropRate=0.5,times=1")).toEqual({
      endpoints: "domains/create",
      commitThenDropRate: 0.5,
      times: 1,
    });
    expect(() => parseFaultRule("nocolon")).toThrow("expected ENDPOINTS:key=value");
  });

  it("refuses an empty value on the command line, and names the flag in every refusal", () => {
    expect(() => parseFaultRule("**:latencyMs=")).toThrow(
      '--fault **:latencyMs=: "latencyMs=" is not setting=number',
    );
    expect(() => parseFaultRule("**:latencyMs=1e12")).toThrow(
      "--fault **:latencyMs=1e12: fault rule: `latencyMs` must be a number from 0 to 600000 (10 minutes)",
    );
  });
});

describe("PUT /__emulator/faults", () => {
  const LIMIT = 1024;
  const KEPT: FaultRule[] = [{ endpoints: "domains/list", rate503: 1, times: 2 }];
  const faults = new FaultInjector();
  let service: RunningService;
  beforeAll(async () => {
    const definition: ServiceDefinition = {
      name: "test",
      endpointOf: () => "x",
      handle: () => Promise.resolve({ status: 200, body: "" }),
      faultResponse: (status) => ({ status, body: "" }),
      tooLargeResponse: () => ({ status: 413, body: "" }),
      internalErrorResponse: () => ({ status: 500, body: "" }),
    };
    service = await startHttpService(definition, {
      host: "127.0.0.1",
      port: 0,
      faults,
      log: new RequestLog(),
      maxBodyBytes: LIMIT,
    });
  });
  afterAll(() => service.close());
  beforeEach(() => faults.set(KEPT));

  const put = async (body: string) => {
    const response = await fetch(`${service.url}/__emulator/faults`, { method: "PUT", body });
    return { status: response.status, error: ((await response.json()) as { error?: string }).error };
  };
  const rules = async () =>
    ((await (await fetch(`${service.url}/__emulator/faults`)).json()) as { rules: FaultRule[] }).rules;

  it("answers a body over the size limit with a 413 and keeps every rule", async () => {
    const clearAll = JSON.stringify({ rules: [] }) + " ".repeat(LIMIT); // would turn faults off
    expect(await put(clearAll)).toEqual({
      status: 413,
      error: "the body is over the size limit; no rule changed",
    });
    expect(await rules()).toEqual(KEPT);
  });

  it.each([
    ["an empty body", "", "faults body is not JSON"],
    ["text", "off", "faults body is not JSON"],
    ["a JSON array", "[]", 'faults body: expected {"rules": [...], "seed"?: N}'],
    ["null", "null", "faults body: expected"],
    ["an object without rules", "{}", "faults body: `rules` must be an array"],
    ["a misspelt field", '{"rule": []}', "faults body: unknown field `rule`"],
    ["rules that are not a list", '{"rules": {}}', "faults body: `rules` must be an array"],
    ["a rule that is not an object", '{"rules": [null]}', "fault rule: must be an object"],
    [
      "a rule with an unknown setting",
      '{"rules": [{"endpoints": "**", "rate249": 1}]}',
      "unknown setting `rate249`",
    ],
    [
      "a seed that is not a number",
      '{"rules": [], "seed": "x"}',
      "faults body: `seed` must be a whole number",
    ],
    [
      "a latency over 10 minutes",
      '{"rules": [{"endpoints": "**", "latencyMs": 1e12}]}',
      "600000 (10 minutes)",
    ],
    [
      "a good rule before a bad one",
      '{"rules": [{"endpoints": "**", "rate429": 1}, {"endpoints": "**", "rate503": 2}]}',
      "`rate503` must be a number from 0 to 1",
    ],
  ])("answers %s with a 400 naming the problem, and keeps every rule", async (_, body, error) => {
    const answer = await put(body);
    expect(answer.status).toBe(400);
    expect(answer.error).toContain(error);
    expect(await rules()).toEqual(KEPT);
  });

  it("replaces the rules with a well-formed body; an empty list turns faults off", async () => {
    expect(await put('{"rules": [{"endpoints": "routes/*", "latencyMs": 50}], "seed": 7}')).toEqual({
      status: 200,
      error: undefined,
    });
    expect(await rules()).toEqual([{ endpoints: "routes/*", latencyMs: 50 }]);
    expect((await put('{"rules": []}')).status).toBe(200);
    expect(await rules()).toEqual([]);
  });
});
