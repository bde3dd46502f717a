import { readFileSync } from "node:fs";
import * as path from "node:path";

/**
 * The suite's jest runtime (support/jest-runtime.js) compiles modules so that V8 reuses what an
 * earlier file compiled. What a module does must not change: each registry gets its own module,
 * made in the test file's realm; stack traces point where the code is; and code with `import(` is
 * still compiled by jest's own compile. The fixtures are .cjs files, which jest does not transform,
 * so the positions below are the files' own.
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

it("compiles code that contains import( with jest's own compile, which handles it", async () => {
  const fixture = jest.requireActual<{ load(): Promise<unknown> }>(`${FIXTURES}/dynamic-import.cjs`);
  // Compiled with jest's import callback, the import reaches Node's check for the flag jest's ES
  // module support needs; compiled without one, it would fail for want of a callback
  // (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING).
  await expect(fixture.load()).rejects.toMatchObject({ code: "ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG" });
});
