// Runs the slowest test files first, and those that serialize functions, whatever jest's cache
// holds. On a fresh clone jest has no timings and orders files by size, which would start
// tests/package/installed.test.ts (small, but the longest by far: four npm installs) last,
// leaving one worker busy long after the others are done. Later runs use jest's own order
// (slowest and failed first) for every file not listed here.
const Sequencer = require("@jest/test-sequencer").default;

/**
 * Longest first, as measured with `npx jest --json` (seconds on a 2-core machine, one worker);
 * files that serialize a function next, while their worker has compiled little: serializing turns
 * on the debugger (see support/pulumi-in-jest.ts), which first reports every script the worker has
 * compiled so far: 5 s of CPU for these four files in a one-worker run.
 */
const SLOWEST_FIRST = [
  "tests/package/installed.test.ts",
  "tests/hardening/provider-faults.test.ts",
  "tests/engine/providers.test.ts",
  "tests/providers/loader.test.ts",
  "tests/engine/harness.test.ts",
  "tests/client/serialization.test.ts",
  "tests/hardening/dns-ownership-faults.test.ts",
  "tests/package/typecheck.test.ts",
  "tests/secrets/secrets.test.ts",
  "tests/bench/rate-limit.test.ts",
  "tests/examples/examples.test.ts",
  "tests/testing/run-timeout.test.ts",
];

class SlowestFirst extends Sequencer {
  sort(tests) {
    const rank = (test) => {
      const relative = test.path
        .slice(test.context.config.rootDir.length + 1)
        .split("\\")
        .join("/");
      const index = SLOWEST_FIRST.indexOf(relative);
      return index === -1 ? SLOWEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: files not listed keep jest's own order after the listed ones.
    return super.sort(tests).sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = SlowestFirst;
