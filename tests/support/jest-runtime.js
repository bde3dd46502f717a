// jest `runtime`: jest's own, except how it compiles a module's code. Plain JavaScript: jest loads
// it with Node's require, outside its own transforms.
const vm = require("node:vm");
const Runtime = require("jest-runtime").default;

/**
 * jest gives each test file a module registry of its own, so a worker compiles the same modules
 * (this package, Pulumi's SDK, zod…) again for every file: jest 30 compiles each with
 * `vm.compileFunction`, which V8 never caches. Compiled as a script instead, a module whose code
 * the worker has compiled before is found in V8's compilation cache (one per process, shared by
 * every file's context), with the functions already compiled while earlier files ran. Measured on
 * ten files that import the package, in one worker: 6.6 s of CPU with jest's compile, 4.1 s with
 * this. What a module does is unchanged: the same function, in the file's context, with jest's
 * handler for `import()`, called by jest as before (`structure/jest-runtime.test.ts`).
 *
 * jest's compile stays where positions must be exact to the column for a tool: V8's coverage
 * (`coverageProvider: "v8"`) counts the wrapper's characters, which jest does not expect.
 */
class CachedCompileRuntime extends Runtime {
  constructor(config, environment, resolver, transformer, cacheFS, coverageOptions, ...rest) {
    super(config, environment, resolver, transformer, cacheFS, coverageOptions, ...rest);
    const executor = this.executor;
    // jest's internals this relies on: fail loudly when an upgrade moves them, not silently slow.
    const internals = ["compile", "dynamicImport", "environment", "injectedModuleParameters", "resolution"];
    const missing = internals.filter((name) => executor?.[name] === undefined);
    if (missing.length > 0)
      throw new Error(
        `tests/support/jest-runtime.js: jest's ModuleExecutor has no ${missing.join(", ")}; update it`,
      );
    if (coverageOptions?.collectCoverage && coverageOptions.coverageProvider === "v8") {
      environment.global[Symbol.for("pulumi-email-delivery/tests/jest-compile")] = "jest's, for V8 coverage";
      return;
    }
    const prefix = `(function(${executor.injectedModuleParameters.join(",")}){`;
    const jestCompile = executor.compile.bind(executor);
    executor.compile = (source, filename) => {
      const context = executor.environment.getVmContext();
      if (context == null) return jestCompile(source, filename);
      // The name jest's compile gives a core module's code.
      const scriptName = executor.resolution.isCoreModule(filename)
        ? `jest-nodejs-core-${filename}`
        : filename;
      try {
        // The wrapper takes no line of its own and its width is taken off the first line's
        // columns: positions in stack traces (and so source maps) are the code's own. A `#!`
        // line, which a function body cannot hold, becomes a comment of the same width.
        const body = source.startsWith("#!") ? `//${source.slice(2)}` : source;
        const script = new vm.Script(`${prefix}${body}\n})`, {
          filename: scriptName,
          columnOffset: -prefix.length,
          // Each script gets jest's handler, as jest's compile gives it. Without Node's
          // --experimental-vm-modules, Node 20 files every script's handler under one key, so
          // V8 still finds the script in its cache.
          importModuleDynamically: (specifier, _script, importAttributes, phase) =>
            executor.dynamicImport(specifier, scriptName, context, importAttributes, phase),
        });
        return script.runInContext(context);
      } catch {
        // jest's compile reports a syntax error its own way (the file, the frame, the hint).
        return jestCompile(source, filename);
      }
    };
  }
}

module.exports = CachedCompileRuntime;
