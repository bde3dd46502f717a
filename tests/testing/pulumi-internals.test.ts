import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { installed, LOAD_INTERNALS, RUN_INTERNALS } from "../../testing/pulumi-internals";
import {
  assertPulumiInternals,
  CHECKED_PULUMI_VERSIONS,
  PulumiSdk,
  supportedPulumiRange,
} from "../../testing/pulumi-sdk-check";
import { pulumiSdkProblems } from "../support/pulumi-sdk-checks";

/**
 * The parts of `@pulumi/pulumi` the kit uses beyond its public API (testing/pulumi-internals.ts),
 * pinned to the versions they were checked against: a lockfile bump to a version not among them
 * fails here until someone checks it (`npx tsx tests/support/pulumi-versions.ts VERSION`) and adds
 * it. The installed version is checked here; others from the registry by that script.
 */

/** semver, as @pulumi/pulumi depends on it (not a dependency of this package). */
const semver = createRequire(require.resolve("@pulumi/pulumi"))("semver") as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

const peerRange = (
  JSON.parse(readFileSync(path.join(__dirname, "../../package.json"), "utf8")) as {
    peerDependencies: Record<string, string>;
  }
).peerDependencies["@pulumi/pulumi"];

describe("the installed @pulumi/pulumi", () => {
  it("is a version the internals were checked against, in the package's peer range", () => {
    expect(supportedPulumiRange()).toBe(peerRange);
    expect(CHECKED_PULUMI_VERSIONS).toContain(installed.version);
    for (const version of CHECKED_PULUMI_VERSIONS) expect(semver.satisfies(version, peerRange)).toBe(true);
    // The lowest version users may have is among those checked.
    expect(CHECKED_PULUMI_VERSIONS).toContain(semver.minVersion(peerRange)?.version);
  });

  it("has every internal the kit uses, with the shape it expects, and its mock monitor behaves as the kit expects", async () => {
    expect(await pulumiSdkProblems(installed)).toEqual([]);
  });
});

describe("an @pulumi/pulumi without an internal the kit uses", () => {
  /** The installed SDK with its runtime changed by `change` (a fake module: nothing real is touched). */
  function sdkWith(change: (runtime: Record<string, unknown>) => void, version = "3.999.0"): PulumiSdk {
    const runtime: Record<string, unknown> = { ...pulumi.runtime };
    change(runtime);
    return { ...installed, version, pulumi: { ...pulumi, runtime } };
  }

  it("fails at the check with one error naming the version found, what is missing and the supported range", () => {
    const sdk = sdkWith((runtime) => delete runtime.waitForRPCs);
    expect(() => assertPulumiInternals(sdk, LOAD_INTERNALS)).toThrow(
      new Error(
        `pulumi-email-delivery/testing cannot run with @pulumi/pulumi 3.999.0 (${installed.root}): it uses parts ` +
          "of the SDK's runtime that are not its public API, and this version does not have them as the kit " +
          "expects:\n  - runtime.waitForRPCs: not found (expected a function)\n" +
          `The kit supports @pulumi/pulumi ${peerRange} (checked against ${CHECKED_PULUMI_VERSIONS.join(", ")}): ` +
          "install a version it was checked against, or a release of pulumi-email-delivery that supports this one.",
      ),
    );
  });

  it.each(["waitForRPCs", "setAllConfig", "runInPulumiStack", "getMonitor"])(
    "names runtime.%s when it is missing",
    (name) => {
      const sdk = sdkWith((runtime) => delete runtime[name]);
      expect(() => assertPulumiInternals(sdk, LOAD_INTERNALS)).toThrow(`  - runtime.${name}: not found`);
    },
  );

  it("names each internal that is missing or of another shape, in one error", () => {
    const sdk = sdkWith((runtime) => {
      runtime.setAllConfig = undefined;
      runtime.specialSigKey = "another";
    });
    expect(() => assertPulumiInternals(sdk, LOAD_INTERNALS)).toThrow(
      /- runtime\.setAllConfig: not found \(expected a function\)\n {2}- runtime\.unknownValue, specialSigKey, specialSecretSig: specialSigKey not as engine-wire\.ts has them\n/,
    );
  });

  it("fails at a run's start when the mock monitor's registerResource has another shape", () => {
    const monitor = { registerResource: (request: unknown) => request };
    const sdk = sdkWith((runtime) => {
      runtime.getMonitor = () => monitor;
    });
    expect(() => assertPulumiInternals(sdk, RUN_INTERNALS)).toThrow(
      /the mock monitor's registerResource\(request, callback\): not found \(expected a method of two parameters\)/,
    );
  });

  it("fails when one of its files is missing (the dynamic-provider host's require-from-string)", () => {
    const sdk: PulumiSdk = {
      ...installed,
      load: (id, from) => {
        if (id === "require-from-string") throw new Error(`Cannot find module '${id}'`);
        return installed.load(id, from);
      },
    };
    expect(() => assertPulumiInternals(sdk, LOAD_INTERNALS)).toThrow(
      /- cmd\/dynamic-provider's require-from-string: not found/,
    );
  });
});

describe("the kit with an @pulumi/pulumi that lacks an internal", () => {
  it("fails when it loads, with the one error, not with a TypeError in the middle of a run", () => {
    let loaded: unknown;
    let error: unknown;
    jest.isolateModules(() => {
      const actual = jest.requireActual<typeof pulumi>("@pulumi/pulumi");
      const runtime: Record<string, unknown> = { ...actual.runtime };
      delete runtime.waitForRPCs;
      jest.doMock("@pulumi/pulumi", () => ({ ...actual, runtime }));
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading the kit is the point
        loaded = require("../../testing");
      } catch (thrown) {
        error = thrown;
      }
    });
    expect(loaded).toBeUndefined();
    expect(String(error)).toMatch(
      new RegExp(
        `^Error: pulumi-email-delivery/testing cannot run with @pulumi/pulumi ${installed.version.replace(/\./g, "\\.")} ` +
          `[\\s\\S]*\\n {2}- runtime\\.waitForRPCs: not found \\(expected a function\\)\\nThe kit supports @pulumi/pulumi \\^3`,
      ),
    );
  });
});
