const os = require("node:os");

// got (and its dependencies) ship as ES modules only. Node 20 can require() them, but jest's own
// module registry cannot until Node 24.9, so they are transpiled to CommonJS here, as the suite is.
// The list is got 14's full ESM dependency closure.
const esmPackages = [
  "got",
  "@sindresorhus/is",
  "byte-counter",
  "cacheable-lookup",
  "cacheable-request",
  "get-stream",
  "@sec-ant/readable-stream",
  "is-stream",
  "keyv",
  "@keyv/serialize",
  "mimic-response",
  "normalize-url",
  "responselike",
  "lowercase-keys",
  "decompress-response",
  "form-data-encoder",
  "p-cancelable",
];

/**
 * Packs the package and installs it the three ways the README gives, then runs users' tests in
 * those projects: minutes of npm, so not part of `npm test`, which is run after every change.
 */
const INSTALLED_MATRIX = "<rootDir>/tests/package/installed\\.test\\.ts$";

/**
 * How jest transpiles the suite, the package's sources and got's ES modules: to CommonJS for ES2022
 * (tsconfig.json's target), transpiling only (type-checking is `npm run typecheck`'s job, one of
 * the suite's files). With swc, for a fraction of ts-jest's CPU, which counts most on a fresh clone,
 * where jest has no transform cached. Where swc's native binary does not load (a platform it has
 * no build for, `npm ci --omit=optional`, a mirror without its platform packages), with ts-jest,
 * saying why, as packaging/tsc.js falls back to TypeScript 6. ts-jest is a devDependency anyway:
 * users' projects run it (docs/testing.md), installed at this repository's version in
 * tests/package/installed.test.ts.
 *
 * Two things swc does differently from ts-jest, which the suite keeps to: a module's exports are
 * getters, so `jest.spyOn` cannot replace one (mock the module with `jest.mock`); and it hoists
 * `jest.mock` above the imports only for the global `jest`, not one imported from `@jest/globals`.
 */
function transform() {
  try {
    require("@swc/core");
  } catch (error) {
    process.emitWarning(
      `swc's compiler does not load here (${String(error.message).split("\n")[0]}): jest transpiles with ts-jest, slower`,
    );
    const tsJest = [
      "ts-jest",
      {
        tsconfig: {
          module: "commonjs",
          moduleResolution: "bundler",
          target: "ES2022",
          allowJs: true,
          esModuleInterop: true,
          isolatedModules: true,
          types: ["node", "jest"],
        },
      },
    ];
    return { "^.+\\.[tj]sx?$": tsJest };
  }
  const swc = (syntax) => [
    "@swc/jest",
    { jsc: { parser: { syntax }, target: "es2022" }, module: { type: "commonjs" } },
  ];
  return { "^.+\\.tsx?$": swc("typescript"), "^.+\\.jsx?$": swc("ecmascript") };
}

/** @type {import("jest").Config} */
module.exports = {
  testEnvironment: "node",
  rootDir: __dirname,
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  // The installed-package matrix is its own command, `npm run test:package` (tests/package/jest.config.js).
  testPathIgnorePatterns: ["/node_modules/", INSTALLED_MATRIX],
  transform: transform(),
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join("|")})/)`],
  // Examples import the package by name, as users do.
  moduleNameMapper: { "^pulumi-email-delivery$": "<rootDir>/provider/index.ts" },
  // Stored provider loaders load the built package (dist/): build it from the sources first.
  globalSetup: "<rootDir>/tests/support/build-package.ts",
  setupFilesAfterEnv: ["<rootDir>/tests/support/pulumi-in-jest.ts"],
  // jest's runtime, with each module compiled so that V8 reuses what an earlier file compiled.
  runtime: "<rootDir>/tests/support/jest-runtime.js",
  testTimeout: 30000,
  // One worker more than cores (jest's default is one fewer): many files spend stretches waiting on
  // child processes, sockets and timers, which another file's work fills. On 2 cores, 3 workers
  // took jest from 127 s to 117 s (same CPU).
  maxWorkers: os.availableParallelism() + 1,
  testSequencer: "<rootDir>/tests/support/sequencer.js",
};
