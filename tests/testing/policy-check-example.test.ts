import { afterAll, beforeAll, expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import { Domain } from "../../provider";
import {
  assertNoPolicyViolations,
  checkPolicies,
  Emulator,
  Program,
  runProgram,
  startEmulator,
} from "../../testing";
import { loadPolicyModules } from "../../testing/policy-analysis";
import { documentBlock } from "../support/readme";

/**
 * The test docs/policy.md "Run the rules in your tests" gives teams to paste, as they write it:
 * only the kit's exports (`pulumi-email-delivery/testing`) and the package's resources. The
 * example runs as shown (a good program passes); the tests after it hold the document to this
 * file's code and show that a program breaking a rule fails the same check, naming the policy.
 */

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.stop());

/** Previews `program` in `stack` and fails, naming each policy it breaks there. */
async function expectPolicies(program: Program<string>, stack: string) {
  const run = await runProgram(program, { mode: "preview", emulator, stack });
  expect(run.errors).toEqual([]);
  assertNoPolicyViolations(await checkPolicies(run));
}

const mail = () => {
  new Domain("mail", {
    name: "mail.example.com",
    cloudflare: { zoneId: emulator.cloudflare.zones[0].id },
    dmarc: {
      policy: "reject",
      subdomainPolicy: "reject",
      aggregateReports: ["mailto:dmarc@mail.example.com"],
    },
  });
  return {};
};

test("the mail domain meets the email policies in production", () => expectPolicies(mail, "production"));
// End of the example.

const DOCUMENT = "docs/policy.md";

test(`${DOCUMENT} shows this example, importing from the package's entries`, () => {
  const shown = documentBlock(DOCUMENT, "ts mail-policies.test.ts");
  const here = readFileSync(__filename, "utf8");
  const example = (text: string) =>
    text.slice(text.indexOf("let emulator: Emulator;")).split("\n// End of")[0];
  expect(example(shown).trimEnd()).toBe(example(here).trimEnd());
  expect(shown).toContain('import { Domain } from "pulumi-email-delivery";');
  expect(shown.replace(/\s+/g, " ")).toContain(
    "import { assertNoPolicyViolations, checkPolicies, Emulator, Program, runProgram, startEmulator, } from " +
      '"pulumi-email-delivery/testing";',
  );
});

/** The example's program without its `dmarc`, as the document shows its failure. */
const withoutDmarc = () => {
  new Domain("mail", { name: "mail.example.com", cloudflare: { zoneId: emulator.cloudflare.zones[0].id } });
  return {};
};

test("a program that breaks a rule fails the example's check, naming the policy, as the document shows", async () => {
  const failure = await expectPolicies(withoutDmarc, "production").then(
    () => new Error("passed"),
    (error: Error) => error,
  );
  expect(failure.message).toContain("email-dmarc-published");
  const shown = documentBlock(DOCUMENT, "text policy-test-failure").trimEnd().split("\n");
  const got = `Error: ${failure.message}`.split("\n").slice(0, shown.length);
  const last = shown.length - 1;
  expect(got.slice(0, last)).toEqual(shown.slice(0, last));
  const cut = shown[last].replace(/ …$/, "");
  expect(got[last].slice(0, cut.length)).toBe(cut);
});

test("checkPolicies: each violation with its resource, the run's stack by default, failOn", async () => {
  const run = await runProgram(withoutDmarc, { mode: "preview", emulator, stack: "staging" });
  const check = await checkPolicies(run);
  expect(check.stack).toBe("staging");
  const published = check.violations.find((v) => v.policy === "email-dmarc-published");
  expect(published).toMatchObject({
    resourceType: "email-delivery:index:Domain",
    resourceName: "mail",
    urn: run.get("email-delivery:index:Domain", "mail").urn,
  });
  expect(check.notApplicable.map((n) => n.policy)).toContain("email-spf-record");
  // Levels as a pack sets them in code: raised to mandatory, it fails with failOn "mandatory" too.
  expect(() => assertNoPolicyViolations(check, { failOn: "mandatory" })).not.toThrow();
  const raised = await checkPolicies(run, { enforcementLevels: { "email-dmarc-published": "mandatory" } });
  expect(() => assertNoPolicyViolations(raised, { failOn: "mandatory" })).toThrow(
    /\[mandatory\] email-dmarc-published on email-delivery:index:Domain "mail"/,
  );
  // Your own policies instead of the package's.
  const none = await checkPolicies(run, { policies: [] });
  expect(none.violations).toEqual([]);
});

test("without @pulumi/policy installed, checkPolicies says so and how to install it", () => {
  const absent = (id: string): string => {
    throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
  };
  expect(() => loadPolicyModules(absent)).toThrow(
    "checkPolicies needs @pulumi/policy (1.21 or newer), which is not installed: it is an optional peer " +
      "dependency of pulumi-email-delivery. Install it beside the package: npm install --save-dev @pulumi/policy",
  );
});
