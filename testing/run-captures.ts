import { nodeRealm, providerAtWork } from "./node-realm";

/**
 * What a run takes from the process while it runs, each given back by the function it returns:
 * unhandled rejections, and the lines its providers and the program's runtime log.
 */

/**
 * A failed registration rejects outputs nobody awaits, and the runtime rethrows a resource's
 * preparation error (an input from a failed resource) from a promise nobody awaits. Under the
 * engine the language host takes these, reports each error once and ends the program; here the
 * run is the language host. While it runs it takes the process's unhandled rejections from the
 * test runner (node:test fails the test at one, jest at one it still tracks) and gives them back
 * after; a rejection handled late is then no warning either.
 */
export function takeUnhandledRejections(onRejection: (reason: unknown) => void): () => void {
  const process = nodeRealm.process;
  const onHandledLate = () => undefined;
  const taken = process.rawListeners("unhandledRejection") as ((...args: unknown[]) => void)[];
  process.removeAllListeners("unhandledRejection");
  process.on("unhandledRejection", onRejection);
  process.on("rejectionHandled", onHandledLate);
  return () => {
    // Given back only as they were taken: a test runner that changed its own since (jest at the
    // end of a test that timed out) keeps what it set.
    const untouched = process
      .rawListeners("unhandledRejection")
      .every((listener) => listener === onRejection);
    process.off("unhandledRejection", onRejection);
    process.off("rejectionHandled", onHandledLate);
    if (untouched) for (const listener of taken) process.on("unhandledRejection", listener);
  };
}

/**
 * Providers log through their own copy of @pulumi/pulumi, which, with no engine, writes to Node's
 * console (not jest's): collect those lines in `lines` instead of printing them. Under plain Node
 * that console is the program's and the test's too: only a provider at work is collected, the
 * rest prints. Returns the undo of each method, in the order they were taken.
 */
export function captureProviderLogs(lines: string[]): (() => void)[] {
  const target = nodeRealm.console;
  return (["log", "warn", "error"] as const).map((method) => {
    const original = target[method];
    target[method] = (...args: unknown[]) => {
      if (providerAtWork.getStore()) lines.push(args.map(String).join(" "));
      else original.apply(target, args);
    };
    return () => {
      target[method] = original;
    };
  });
}

/**
 * The program's own @pulumi/pulumi, with no engine, logs "info: [runtime] …" to jest's console:
 * collect those lines in `lines`. Returns the undo of each method, in the order they were taken.
 */
export function captureProgramLogs(lines: string[]): (() => void)[] {
  return (["log", "warn"] as const).map((method) => {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      const line = args.map(String).join(" ");
      if (!providerAtWork.getStore() && /^(info|warning): \[runtime\] /.test(line)) lines.push(line);
      else original(...args);
    };
    return () => {
      console[method] = original;
    };
  });
}
