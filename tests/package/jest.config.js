/**
 * `npm run test:package`: the package as users get it, packed and installed the three ways the
 * README gives, with users' own tests run in those projects (installed.test.ts). `npm test` leaves
 * it out (minutes of npm); `.ci/run` runs it after `npm test`, and so should a change to packaging,
 * the entry points or the docs' install steps before it lands.
 */
const { testSequencer: _sequencer, ...suite } = require("../../jest.config.js");

/** @type {import("jest").Config} */
module.exports = {
  ...suite,
  testMatch: ["<rootDir>/tests/package/installed.test.ts"],
  testPathIgnorePatterns: ["/node_modules/"],
  // One file: one worker, and nothing for the suite's sequencer (testSequencer) to order.
  maxWorkers: 1,
};
