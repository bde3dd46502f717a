import { execFile } from "node:child_process";
import * as path from "node:path";

/**
 * A program with a Domain under Pulumi's own unit-test mocks, written as Pulumi's testing guide
 * writes them (`newResource` echoes the inputs as state, `call` echoes the arguments), in a process
 * of its own with the built package, as a team's existing unit test runs it. The zone read's answer
 * then holds no records and the service domain's state no `dnsRecords`: the test must keep passing,
 * told once why the zone checks were skipped. Under the engine, an update that cannot read the zone
 * still fails (the second part: the same program with a monitor that is not the mocks').
 */

const REPO_ROOT = path.resolve(__dirname, "../..");
const ZONE = "0123456789abcdef0123456789abcdef";

interface Outcome {
  registered: { type: string; name: string; inputs: Record<string, unknown> }[];
  warnings: string[];
  errors: string[];
  routeDomainId?: unknown;
}

/** Runs the program under the mocks; `engineLike` hides the mocks from the package, as the engine's monitor has none. */
async function runUnderMocks(preview: boolean, engineLike = false): Promise<Outcome> {
  const script = `
    const pulumi = require(${JSON.stringify(require.resolve("@pulumi/pulumi"))});
    const registered = [], warnings = [], errors = [];
    console.warn = (line) => warnings.push(String(line));
    console.error = (line) => errors.push(String(line));
    process.on("unhandledRejection", (error) => errors.push(String(error && error.message)));
    pulumi.runtime.setMocks({
      newResource: (args) => {
        registered.push({ type: args.type, name: args.name, inputs: args.inputs });
        return { id: args.name + "_id", state: args.inputs };
      },
      call: (args) => args.inputs,
    }, "project", "stack", ${preview});
    if (${engineLike}) {
      const mocks = pulumi.runtime.getMonitor();
      const monitor = new Proxy(mocks, {
        get: (target, key) => (key === "mocks" ? undefined : typeof target[key] === "function" ? target[key].bind(target) : target[key]),
      });
      pulumi.runtime.setMockOptions(monitor, "project", "stack", ${preview});
    }
    const { Domain, Route } = require(${JSON.stringify(path.join(REPO_ROOT, "dist/provider"))});
    const domain = new Domain("mail", { name: "mail.example.com", cloudflare: { zoneId: "${ZONE}" } });
    const route = new Route("support", { name: "support", domainId: domain.domainId, endpointId: 1 });
    let routeDomainId;
    route.domainId.apply((id) => (routeDomainId = id));
    // Once the program has nothing left to do: every registration answered, or failed.
    process.once("beforeExit", () => process.stdout.write(JSON.stringify({ registered, warnings, errors, routeDomainId })));`;
  // The exit status is the runtime's (a failed program's is not 0): what it printed tells.
  const stdout = await new Promise<string>((resolve) =>
    execFile(process.execPath, ["-e", script], { cwd: REPO_ROOT }, (_error, out) => resolve(out)),
  );
  return JSON.parse(stdout) as Outcome;
}

const typesOf = (outcome: Outcome) => outcome.registered.map((r) => `${r.type} ${r.name}`).sort();

describe.each([
  ["preview", true],
  ["update", false],
])("Pulumi's documented mocks, %s", (_mode, preview) => {
  let outcome: Outcome;
  beforeAll(async () => {
    outcome = await runUnderMocks(preview);
  });

  it("runs without an error, and says once that the zone checks were skipped and why", () => {
    expect(outcome.errors).toEqual([]);
    const skipped = outcome.warnings.filter((line) => line.includes("zone checks were skipped"));
    expect(skipped).toEqual([
      expect.stringContaining(
        `the unit-test mocks (pulumi.runtime.setMocks) answered the read of zone ${ZONE} ` +
          "(cloudflare:index/getDnsRecords:getDnsRecords) without `results`",
      ),
    ]);
  });

  it("registers the Domain's resources and the Route that depends on its verification", () => {
    expect(typesOf(outcome)).toEqual(
      [
        "cloudflare:index/dnsRecord:DnsRecord mail-dkim",
        "cloudflare:index/dnsRecord:DnsRecord mail-return-path",
        "cloudflare:index/dnsRecord:DnsRecord mail-spf",
        "email-delivery:index:Domain mail",
        "pulumi-nodejs:dynamic/email-delivery:Domain mail",
        "pulumi-nodejs:dynamic/email-delivery:DomainVerification mail-verification",
        "pulumi-nodejs:dynamic/email-delivery:Route support",
      ].sort(),
    );
    const spf = outcome.registered.find((r) => r.name === "mail-spf")!;
    // What only the service says is not known, as in a preview: no name or content made up.
    expect(spf.inputs).toEqual(expect.objectContaining({ zoneId: ZONE, type: "TXT", proxied: false }));
    expect(typeof spf.inputs.content).not.toBe("string");
    expect(typeof spf.inputs.name).not.toBe("string");
    expect(outcome.registered.find((r) => r.name === "support")!.inputs).toEqual(
      expect.objectContaining({ name: "support", endpointId: 1 }),
    );
  });
});

it("under the engine, an update whose zone read has no records fails, naming the Domain and the zone", async () => {
  const outcome = await runUnderMocks(false, true);
  expect(outcome.errors).toContain(
    `Domain mail: the read of zone ${ZONE} at mail.example.com failed: the Cloudflare provider answered the read ` +
      `of zone ${ZONE} without any records, as it does when its configuration is not known yet`,
  );
  // Nothing is published unchecked, and the domain is not made: its preflight failed.
  expect(typesOf(outcome)).not.toContain("cloudflare:index/dnsRecord:DnsRecord mail-spf");
  expect(typesOf(outcome)).not.toContain("pulumi-nodejs:dynamic/email-delivery:Domain mail");
});
