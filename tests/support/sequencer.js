// Runs the slowest test files first, and those that serialize functions, whatever jest's cache
// holds. On a fresh clone jest has no timings and orders files by size, which would start a small
// but long file last, leaving one worker busy long after the others are done. Later runs use
// jest's own order (slowest and failed first) for every file not listed here.
const Sequencer = require("@jest/test-sequencer").default;

/**
 * Every file that serializes a function, next, while its worker has compiled little: serializing
 * turns on the debugger (see support/pulumi-in-jest.ts), which first reports every script the
 * worker has compiled so far: 5 s of CPU for the first four here in a one-worker run when they came
 * last.
 */
const SERIALIZING = [
  "tests/engine/providers.test.ts",
  "tests/providers/loader.test.ts",
  "tests/engine/harness.test.ts",
  "tests/programs/harness.test.ts",
  "tests/testing/destroy-failure.test.ts",
  "tests/testing/init-failure.test.ts",
];

/** Then the other files that take more than ~10 s among the suite's, longest first (`npx jest --json`). */
const SLOW = [
  "tests/hardening/provider-faults.test.ts",
  "tests/bench/zone-scale.test.ts",
  "tests/receivers/corpus.test.ts",
  "tests/bench/rate-limit.test.ts",
  "tests/policy/pack-corpus.test.ts",
  "tests/providers/two-stacks.test.ts",
  "tests/hardening/zone-review-programs.test.ts",
  "tests/receivers/harness.test.ts",
  "tests/programs/diagnosis.test.ts",
  "tests/package/doctor-command.test.ts",
  "tests/package/compiler-choice.test.ts",
  "tests/emulator/state-file.test.ts",
  "tests/programs/cloudflare-account-limit.test.ts",
  "tests/package/typecheck.test.ts",
];

const FIRST = [...SERIALIZING, ...SLOW];

class SlowestFirst extends Sequencer {
  sort(tests) {
    const rank = (test) => {
      const relative = test.path
        .slice(test.context.config.rootDir.length + 1)
        .split("\\")
        .join("/");
      const index = FIRST.indexOf(relative);
      return index === -1 ? FIRST.length : index;
    };
    // Array.prototype.sort is stable: files not listed keep jest's own order after the listed ones.
    return super.sort(tests).sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = SlowestFirst;
