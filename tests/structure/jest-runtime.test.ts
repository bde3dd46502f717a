import { readFileSync } from "node:fs";
import * as path from "node:path";

/**
 * The suite's jest runtime (support/jest-runtime.js) compiles modules so that V8 reuses what an
 * earlier file compiled. What a module does must not change: each registry gets its own module,
 * made in the test file's realm; stack traces point where the code is; `import()` gets jest's
 * handler. The fixtures are .cjs files, which jest does not transform, so the positions below are
 * the files' own.
 */
const FIXTURES = path.resolve(__dirname, "../fixtures/jest-runtime");

interface Counter {
  next(): number;
  made(): unknown[];
}

it("gives each module registry a module of its own, made in the test file's realm", () => {
  const counters: Counter[] = [];
  for (let i = 0; i < 2; i++) {
    jest.isolateModules(() => counters.push(jest.requireActual<Counter>(`${FIXTURES}/counter.cjs`)));
  }
  expect(counters[0]).not.toBe(counters[1]);
  expect(counters[0].next()).toBe(1);
  expect(counters[0].next()).toBe(2);
  expect(counters[1].next()).toBe(1);
  expect(counters[0].made()).toBeInstanceOf(Array);
  expect(counters[0].next).toBeInstanceOf(Function);
});

it("points stack traces at the module's own line and column, on its first line too", () => {
  const file = `${FIXTURES}/throws.cjs`;
  const lines = readFileSync(file, "utf8").split("\n");
  const fixture = jest.requireActual<Record<string, () => never>>(file);
  const thrownAt = (name: string) => {
    try {
      fixture[name]();
    } catch (error) {
      return (error as Error).stack!.split("\n").find((frame) => frame.includes(file))!;
    }
    throw new Error(`${name} did not throw`);
  };
  // V8 reports a `throw new Error(…)` at its `new`, columns counted from 1.
  expect(thrownAt("onFirstLine")).toContain(`${file}:1:${lines[0].indexOf("new Error") + 1}`);
  expect(thrownAt("onThirdLine")).toContain(`${file}:3:${lines[2].indexOf("new Error") + 1}`);
});

/** Set by the runtime where it leaves the compile to jest: V8's coverage counts columns. */
const jestCompile = (globalThis as Record<symbol, unknown>)[
  Symbol.for("pulumi-email-delivery/tests/jest-compile")
];

(jestCompile === undefined ? it : it.skip)(
  "compiles each module with the suite's runtime, those with a #! line too",
  () => {
    // jest's own compile makes `function (module, exports, …) {`; the runtime's script,
    // `(function(module,exports,…){`. Were the runtime not in use, the suite would only be slower.
    expect(jest.requireActual(`${FIXTURES}/wrapper.cjs`)).toBe("function(");
    expect(jest.requireActual(`${FIXTURES}/shebang.cjs`)).toBe("function(");
  },
);

it("gives import() jest's handler, as jest's own compile does", async () => {
  const fixture = jest.requireActual<{ load(): Promise<unknown> }>(`${FIXTURES}/dynamic-import.cjs`);
  // With jest's handler the import reaches Node's check for the flag jest's ES module support
  // needs; without a handler it would fail for want of one (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING).
  await expect(fixture.load()).rejects.toMatchObject({ code: "ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG" });
});
