// got (and its dependencies) ship as ES modules only. Node 20 can require() them, but jest's own
// module registry cannot until Node 24.9, so ts-jest transpiles them to CommonJS here.
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

/** @type {import("jest").Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.[tj]sx?$": [
      "ts-jest",
      {
        // Type-checking is `npm run typecheck`'s job; isolatedModules keeps the suite fast.
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
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join("|")})/)`],
  // Examples import the package by name, as users do.
  moduleNameMapper: { "^pulumi-email-delivery$": "<rootDir>/provider/index.ts" },
  // Stored provider loaders load the built package (dist/): build it from the sources first.
  globalSetup: "<rootDir>/tests/support/build-package.ts",
  testTimeout: 30000,
  // Two workers even on a 2-core machine (jest's default is cores - 1, so one there): most files
  // spend their time waiting on child processes, sockets and timers, not on jest's own process.
  maxWorkers: 2,
  // A worker past 1 GB after a file is replaced by a fresh one: the program and host tests grow
  // them to 1.5 GB and more, and then the kernel's paging (system time) slows both workers, and a
  // worker that large outlasts jest's grace period at exit ("failed to exit gracefully").
  // Measured on 2 cores from a clean cache: 158 s and 283 s of CPU without, 149 s and 259 s with.
  workerIdleMemoryLimit: "1GB",
  testSequencer: "<rootDir>/tests/support/sequencer.js",
};
