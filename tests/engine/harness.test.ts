import * as pulumi from "@pulumi/pulumi";
import {
  isHostCallError,
  Props,
  rpcSecret,
  serializeProvider,
  startProviderHost,
  UNKNOWN,
  urnFor,
  useProviderHost,
} from "../support/provider-host";

/**
 * The harness itself, against a trivial in-memory provider: proves that requests reach the real
 * dynamic-provider host, that its answers (including ErrorResourceInitFailed details) decode, and
 * that the host process is stopped. The provider is plain objects and functions because it goes
 * through Pulumi's closure serializer; its state lives on the host's globalThis.
 */

interface Memory {
  items: Record<string, Props>;
  next: number;
  config: Record<string, string | undefined>;
}

const memoryProvider = {
  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    // The host deserializes and configures once per distinct provider text, so a second text
    // (see otherText) configures again in the same process: keep what is already stored.
    const g = globalThis as { __harnessMemory?: Memory };
    g.__harnessMemory ??= { items: {}, next: 1, config: {} };
    // `greeting` has no namespace, so the host prefixes the project name.
    g.__harnessMemory.config = {
      greeting: req.config.get("greeting"),
      qualified: req.config.get("other:key"),
    };
  },
  async check(_olds: Props, news: Props): Promise<pulumi.dynamic.CheckResult> {
    const failures: pulumi.dynamic.CheckFailure[] = [];
    if (
      typeof news.name !== "string" ||
      (news.name !== UNKNOWN_VALUE && news.name !== news.name.toLowerCase())
    )
      failures.push({ property: "name", reason: "name must be lowercase" });
    return { inputs: { size: 1, ...news }, failures };
  },
  async diff(_id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult> {
    if (news.name === UNKNOWN_VALUE) return { replaces: ["name"], deleteBeforeReplace: true };
    const replaces = olds.name !== news.name ? ["name"] : [];
    // __provider is deliberately not compared: a new provider text alone is no change.
    return {
      changes: replaces.length > 0 || olds.size !== news.size,
      replaces,
      deleteBeforeReplace: replaces.length > 0,
    };
  },
  async create(inputs: Props): Promise<pulumi.dynamic.CreateResult> {
    const memory = (globalThis as { __harnessMemory?: Memory }).__harnessMemory!;
    const id = String(memory.next++);
    if (inputs.name === "half-made") {
      memory.items[id] = { name: inputs.name };
      // Thrown as a plain object: `class extends Error` does not survive serialization.
      throw {
        message: "half-made never became ready",
        id,
        properties: { name: inputs.name, ready: false },
        reasons: ["not ready after 0 s", "second reason"],
      };
    }
    if (inputs.name === "refused") throw new Error("the service refused it");
    if (inputs.name === "bulky") {
      // As large as an init failure that carries `__provider` (a real provider's text is ~70 KB).
      throw { message: "bulky failed", id: "bulky-1", properties: { blob: "0123456789".repeat(15_000) } };
    }
    pulumi.log.info(`creating ${String(inputs.name)}`);
    const outs = { name: inputs.name, size: inputs.size, ...memory.config };
    memory.items[id] = outs;
    return { id, outs };
  },
  async read(id: string): Promise<pulumi.dynamic.ReadResult> {
    const memory = (globalThis as { __harnessMemory?: Memory }).__harnessMemory!;
    const item = memory.items[id];
    return item ? { id, props: item } : {};
  },
  async update(id: string, _olds: Props, news: Props): Promise<pulumi.dynamic.UpdateResult> {
    const memory = (globalThis as { __harnessMemory?: Memory }).__harnessMemory!;
    memory.items[id] = { ...memory.items[id], size: news.size };
    return { outs: memory.items[id] };
  },
  async delete(id: string): Promise<void> {
    const memory = (globalThis as { __harnessMemory?: Memory }).__harnessMemory!;
    delete memory.items[id];
  },
};
// Captured by value into the serialized text (a string constant serializes fine).
const UNKNOWN_VALUE = UNKNOWN;

describe("provider host harness", () => {
  const host = useProviderHost();
  const urn = urnFor("test:Memory", "thing");
  let text: string;
  let otherText: string;

  beforeAll(async () => {
    text = await serializeProvider(memoryProvider);
    // The same provider serialized after an edit: a different text, as after a package upgrade.
    otherText = `${text}\n// edited`;
    // Configure is sent once, before any resource call, with namespaced keys as the engine sends them.
    expect(
      await host().configure({
        "email-delivery:greeting": rpcSecret("hello"),
        "other:key": "qualified value",
      }),
    ).toEqual({ acceptSecrets: false });
  });

  it("serializes the provider as pulumi.dynamic.Resource does", () => {
    expect(text).toContain("exports.handler");
    expect(text).toContain("half-made");
  });

  it("check: failures per property, defaults filled, __provider kept", async () => {
    const bad = await host().check(urn, {}, { name: "Upper", __provider: text });
    expect(bad.failures).toEqual([{ property: "name", reason: "name must be lowercase" }]);

    const good = await host().check(urn, {}, { name: "lower", __provider: text });
    expect(good).toEqual({ inputs: { name: "lower", size: 1, __provider: text }, failures: [] });
  });

  it("check: unknown values pass through", async () => {
    const result = await host().check(urn, {}, { name: UNKNOWN, __provider: text });
    expect(result).toEqual({ inputs: { name: UNKNOWN, size: 1, __provider: text }, failures: [] });
  });

  it("create → read → diff → update → delete → read gone", async () => {
    const created = await host().create(urn, { name: "lower", size: 1, __provider: text });
    // Configure reached the provider: a secret-wrapped value unwrapped, an unqualified key prefixed.
    expect(created.properties).toEqual({
      name: "lower",
      size: 1,
      greeting: "hello",
      qualified: "qualified value",
      __provider: text,
    });
    const { id } = created;
    expect(id).toMatch(/^\d+$/);

    expect(await host().read(id, urn, created.properties)).toEqual({
      id,
      properties: created.properties,
    });

    const olds = created.properties;
    expect(await host().diff(id, urn, olds, { name: "lower", size: 1, __provider: otherText })).toEqual({
      changes: "DIFF_NONE",
      replaces: [],
      stables: [],
      deleteBeforeReplace: false,
    });
    expect(await host().diff(id, urn, olds, { name: "lower", size: 2, __provider: text })).toMatchObject({
      changes: "DIFF_SOME",
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(await host().diff(id, urn, olds, { name: "renamed", size: 1, __provider: text })).toMatchObject({
      changes: "DIFF_SOME",
      replaces: ["name"],
      deleteBeforeReplace: true,
    });
    // A provider that leaves `changes` unset: the host reports DIFF_UNKNOWN.
    expect(await host().diff(id, urn, olds, { name: UNKNOWN, size: 1, __provider: text })).toMatchObject({
      changes: "DIFF_UNKNOWN",
      replaces: ["name"],
    });

    const updated = await host().update(id, urn, olds, { name: "lower", size: 2, __provider: text });
    expect(updated.properties).toMatchObject({ name: "lower", size: 2, __provider: text });

    await host().delete(id, urn, updated.properties);
    expect(await host().read(id, urn, updated.properties)).toEqual({
      id: "",
      properties: { __provider: text },
    });
  });

  it("a create that throws {id, properties, reasons} → ErrorResourceInitFailed", async () => {
    const error = await host()
      .create(urn, { name: "half-made", size: 1, __provider: text })
      .catch((e: unknown) => e);
    if (!isHostCallError(error)) throw error;
    expect(error.method).toBe("create");
    expect(error.via).toBe("network");
    expect(error.code).toBe(2);
    expect(error.details).toBe("half-made never became ready");
    expect(error.initFailed).toEqual({
      id: expect.stringMatching(/^\d+$/),
      properties: { name: "half-made", ready: false },
      reasons: ["not ready after 0 s", "second reason"],
    });
    // The engine would keep this id in state; the object does exist in the host.
    expect(await host().read(error.initFailed!.id, urn, { __provider: text })).toMatchObject({
      id: error.initFailed!.id,
    });
  });

  it("ErrorResourceInitFailed larger than 64 KiB arrives (the engine accepts up to 16 MiB)", async () => {
    const error = await host()
      .create(urn, { name: "bulky", size: 1, __provider: text })
      .catch((e: unknown) => e);
    if (!isHostCallError(error)) throw error;
    // Node's HTTP/2 client cannot take a header field this large, so it is read from the tap.
    expect(error.via).toBe("tap");
    expect(error.initFailed).toEqual({
      id: "bulky-1",
      properties: { blob: "0123456789".repeat(15_000) },
      reasons: [],
    });
  });

  it("a create that throws an Error → UNKNOWN with its message and no details", async () => {
    const error = await host()
      .create(urn, { name: "refused", size: 1, __provider: text })
      .catch((e: unknown) => e);
    if (!isHostCallError(error)) throw error;
    expect(error).toMatchObject({ code: 2, details: "the service refused it" });
    expect(error.initFailed).toBeUndefined();
  });

  it("after an answer read from the tap, the next call goes through a new connection", async () => {
    expect(await host().check(urn, {}, { name: "again", __provider: text })).toMatchObject({ failures: [] });
  });

  it("captures the host's output (pulumi.log falls back to stdout without an engine)", async () => {
    await host().create(urn, { name: "logged", size: 1, __provider: text });
    expect(await host().waitForOutput("creating logged")).toBe("info: [runtime] creating logged");
  });

  it("stop() ends the host process", async () => {
    const second = await startProviderHost();
    const pid = second.pid;
    expect(() => process.kill(pid, 0)).not.toThrow();
    await second.stop();
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
