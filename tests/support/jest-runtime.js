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
 * this. What a module does is unchanged: the same function, in the file's context, called by
 * jest as before.
 *
 * V8 only finds a script in its cache when Node gave it no `importModuleDynamically` callback (a
 * callback makes each script's options unique), and a script compiled without one cannot run
 * `import()`. So code that contains `import(` keeps jest's compile: the transform turns the suite's
 * own `import()` into `require`, and jest runs ES modules only with Node's
 * `--experimental-vm-modules`, which this suite does not use.
 */
class CachedCompileRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    const executor = this.executor;
    const prefix = `(function(${executor.injectedModuleParameters.join(",")}){`;
    const jestCompile = executor.compile.bind(executor);
    executor.compile = (source, filename) => {
      const context = executor.environment.getVmContext();
      if (context == null || source.includes("import(")) return jestCompile(source, filename);
      try {
        // The wrapper takes no line of its own and its width is taken off the first line's
        // columns: positions in stack traces (and so source maps) are the code's own.
        return new vm.Script(`${prefix}${source}\n})`, {
          filename,
          columnOffset: -prefix.length,
        }).runInContext(context);
      } catch {
        // jest's compile reports a syntax error its own way (the file, the frame, the hint).
        return jestCompile(source, filename);
      }
    };
  }
}

module.exports = CachedCompileRuntime;
