import { processRuntime } from "../../provider/client/process-runtime";
import { processState } from "../../provider/process-state";
import { forgetConfig } from "../../provider/dynamic/configured";
import { connectionSetting } from "../../provider/dynamic/connection";
import { kitRunStop, setKitRunStop } from "../../provider/verification/kit-run-stop";
import { configureRequest } from "../support/providers";

/** Another copy of the package's modules in this process, as jest's registries and the kit make them. */
function anotherCopy<T>(path: string): T {
  let copy: T | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    copy = require(path) as T;
  });
  if (copy === undefined) throw new Error(`${path} did not load`);
  return copy;
}

describe("process state", () => {
  afterEach(() => forgetConfig());

  it("is one object for every copy of the modules in the process", () => {
    const other = anotherCopy<typeof import("../../provider/client/process-runtime")>(
      "../../provider/client/process-runtime",
    );
    expect(other.processRuntime).not.toBe(processRuntime);
    expect(other.processRuntime()).toBe(processRuntime());
  });

  it("gives the stack config one copy's configure() received to another copy's providers", async () => {
    const other = anotherCopy<typeof import("../../provider/dynamic/configured")>(
      "../../provider/dynamic/configured",
    );
    await other.rememberConfig(configureRequest({ "emailDelivery:baseUrl": "http://127.0.0.1:9" }));
    expect(connectionSetting("baseUrl")).toBe("http://127.0.0.1:9");
  });

  it("holds the kit's run stop per realm, and takes it away only while it is this run's", () => {
    const realm = {};
    const first = new AbortController().signal;
    const second = new AbortController().signal;
    const removeFirst = setKitRunStop(realm, first);
    expect(processState(realm).kitRunStop).toBe(first);
    expect(kitRunStop()).toBeUndefined(); // another realm's run
    const removeSecond = setKitRunStop(realm, second);
    removeFirst();
    expect(processState(realm).kitRunStop).toBe(second);
    removeSecond();
    expect(processState(realm).kitRunStop).toBeUndefined();
  });
});
