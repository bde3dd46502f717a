import { execFile } from "node:child_process";
import { REPO_ROOT } from "../../packaging/clean-clone";
import { startEmulator, type Emulator } from "../../emulator";

/**
 * `pulumi-email-delivery doctor <domain>` as built (dist/src/doctor/bin.js), against an emulator
 * started here: exit 0 when every check passes, 1 when one does not, 2 on a usage or settings
 * error; `--json`; a table within 80 columns; the key never printed.
 */

const BIN = `${REPO_ROOT}/dist/src/doctor/bin.js`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function doctor(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH, ...env } },
      (_e, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

let emulator: Emulator;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  emulator = await startEmulator({ zones: ["example.com"] });
  await emulator.emailApi.addDomain("good.example.com", { verified: true });
  await emulator.emailApi.addDomain("bare.example.com");
  env = { EMAIL_DELIVERY_BASE_URL: emulator.emailApi.url, EMAIL_DELIVERY_API_KEY: emulator.emailApi.apiKey };
});
afterAll(() => emulator.stop());

function expectNoKey(run: Run): void {
  expect(run.stdout + run.stderr).not.toContain(emulator.emailApi.apiKey);
}

it("exit 0 and a table of four OK checks when the domain verifies", async () => {
  const run = await doctor(["doctor", "good.example.com"], env);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("good.example.com: all 4 checks pass");
  expect(run.stdout.match(/ OK\b/g)).toHaveLength(4);
  expectNoKey(run);
});

it("exit 1 with the service's statuses and texts, within 80 columns, when a check fails", async () => {
  const run = await doctor(["doctor", "bare.example.com"], env);
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(/bare\.example\.com: \d of 4 checks failing/);
  expect(run.stdout).toMatch(/DKIM\s+Missing/);
  for (const line of run.stdout.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
  expectNoKey(run);
});

it("--json: one document with each check, the diagnosis rows and the verdict", async () => {
  const run = await doctor(["doctor", "bare.example.com", "--json"], env);
  expect(run.code).toBe(1);
  const report = JSON.parse(run.stdout);
  expect(report).toMatchObject({ domain: "bare.example.com", found: true, passed: false, diagnosis: [] });
  expect(report.checks.map((c: { check: string }) => c.check)).toEqual(["spf", "dkim", "mx", "returnPath"]);
  expect(report.checks[1]).toMatchObject({ label: "DKIM", status: "Missing", passed: false });
  expect(typeof report.checks[1].serviceSays).toBe("string");
});

it("exit 1 for a domain the key's server does not have", async () => {
  const run = await doctor(["doctor", "nowhere.example.com"], env);
  expect(run.code).toBe(1);
  expect(run.stdout).toContain("the service has no domain of that name");
});

it.each([
  ["no settings", ["doctor", "good.example.com"], {}, "no base URL"],
  ["no domain", ["doctor"], undefined, "no domain"],
  ["an unknown flag", ["doctor", "good.example.com", "--verbose"], undefined, "--verbose"],
  [
    "a refused key",
    ["doctor", "good.example.com"],
    { EMAIL_DELIVERY_API_KEY: "WrongKey000000000000000" },
    "refused the API key",
  ],
])("exit 2 with the reason: %s", async (_what, args, overrides, reason) => {
  const run = await doctor(
    args,
    overrides && Object.keys(overrides).length === 0 ? {} : { ...env, ...overrides },
  );
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(reason);
  expect(run.stdout).toBe("");
  expectNoKey(run);
});

it("--api-key works and warns that env is safer, without printing the key", async () => {
  const run = await doctor(["doctor", "good.example.com", "--api-key", emulator.emailApi.apiKey], {
    EMAIL_DELIVERY_BASE_URL: emulator.emailApi.url,
  });
  expect(run.code).toBe(0);
  expect(run.stderr).toContain("prefer EMAIL_DELIVERY_API_KEY");
  expectNoKey(run);
});
