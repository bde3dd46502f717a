import { processRuntime } from "../../provider/client/process-runtime";
import { freshList, ListKind, writeThrough } from "../../provider/client/shared-lists";

/**
 * When a fresh list waits for more creates to share it (shared-lists.ts): only while other writes
 * to the same service are under way in the process. What is asked of the process's lists is
 * watched; no request is sent (the lists answer at once).
 */
describe("a fresh list's gathering window", () => {
  const keyOf = (service: string) => (kind: ListKind) => `${service}#key#${kind}`;
  const unchanged =
    () =>
    <T>(items: readonly T[]) =>
      items;
  let gathered: boolean[];
  let spy: jest.SpyInstance;
  beforeEach(() => {
    gathered = [];
    const lists = processRuntime().lists;
    const original = lists.runStartedAfterCall.bind(lists);
    spy = jest
      .spyOn(lists, "runStartedAfterCall")
      .mockImplementation((key: string, start: () => Promise<unknown>, gather?: boolean) => {
        gathered.push(gather ?? true);
        return original(key, start, gather);
      });
  });
  afterEach(() => spy.mockRestore());

  /** A create of `service`: a write that proves its name with a fresh list of routes. */
  const create = (service: string) =>
    writeThrough(keyOf(service), () => freshList(keyOf(service)("routes"), async () => [], true), {
      routes: unchanged,
    });

  it("is skipped by a create alone in the process, and by a read with nothing under way", async () => {
    await create("http://a");
    await freshList(keyOf("http://a")("domains"), async () => []);
    expect(gathered).toEqual([false, false]);
  });

  it("is waited while another write to the same service is under way, not to another service", async () => {
    let finish!: () => void;
    const other = writeThrough(keyOf("http://b"), () => new Promise<void>((resolve) => (finish = resolve)), {
      domains: unchanged,
    });
    await create("http://c");
    await create("http://b");
    finish();
    await other;
    expect(gathered).toEqual([false, true]);
  });

  it("counts a write as under way until it ends, failed or not", async () => {
    const failing = writeThrough(keyOf("http://d"), () => Promise.reject(new Error("lost")), {
      domains: unchanged,
    });
    await expect(failing).rejects.toThrow("lost");
    await create("http://d");
    expect(gathered).toEqual([false]);
  });
});
