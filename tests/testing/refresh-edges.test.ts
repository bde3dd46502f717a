import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import { useEmulator } from "../support/emulator";
import { destroyRun, refreshRun, runProgram } from "../../testing";

/**
 * `refreshRun` where a careless program or a hostile world would break it (found by an attack on
 * it): resources of one type and name under other parents, a resource kept by an initialization
 * failure, reads that throw, a bad `parallel`, a hand-written `cloudflare.DnsRecord`.
 */

/** The world outside Pulumi: what a key/value provider's `read` answers, and what `delete` got. */
const FILE = path.join(os.tmpdir(), `refresh-edges-${process.pid}.json`);
type World = { values: Record<string, string>; throwOn: string[]; deletes: unknown[] };
const world = (): World => JSON.parse(fs.readFileSync(FILE, "utf8")) as World;
const setWorld = (values: Record<string, string>, throwOn: string[] = []) =>
  fs.writeFileSync(FILE, JSON.stringify({ values, throwOn, deletes: [] }));

// The provider's functions are serialized into its state, so they require `fs` themselves.
/* eslint-disable @typescript-eslint/no-require-imports */
function kvProvider(file: string): pulumi.dynamic.ResourceProvider {
  return {
    async create(inputs) {
      if (inputs.initFail)
        throw Object.assign(new Error(`init of ${inputs.key} failed`), {
          id: `kv-${inputs.key}`,
          properties: { key: inputs.key, value: inputs.value },
          reasons: ["half made"],
        });
      return { id: `kv-${inputs.key}`, outs: { key: inputs.key, value: inputs.value } };
    },
    async read(id, props) {
      const now = JSON.parse(require("fs").readFileSync(file, "utf8"));
      if (now.throwOn.includes(props.key)) throw new Error(`read of ${props.key} failed`);
      if (!(props.key in now.values)) return { id: "" };
      return { id, props: { key: props.key, value: now.values[props.key] } };
    },
    async delete(id, props) {
      const fsm = require("fs");
      const now = JSON.parse(fsm.readFileSync(file, "utf8"));
      now.deletes.push({ id, value: props.value });
      fsm.writeFileSync(file, JSON.stringify(now));
    },
  };
}

/* eslint-enable @typescript-eslint/no-require-imports */

class Kv extends pulumi.dynamic.Resource {
  constructor(
    name: string,
    args: { key: string; value: string; initFail?: boolean },
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(kvProvider(FILE), name, { ...args }, opts, "edges", "Kv");
  }
}

class Team extends pulumi.ComponentResource {
  constructor(name: string) {
    super("edges:index:Team", name);
    new Kv("x", { key: "child", value: "c" }, { parent: this });
    this.registerOutputs({});
  }
}

const KV = "pulumi-nodejs:dynamic/edges:Kv";
const emulator = useEmulator();
const live = () => ({ mode: "live" as const, emulator: emulator() });
afterAll(() => fs.rmSync(FILE, { force: true }));

describe("two resources of one type and name under different parents", () => {
  const program = () => {
    new Kv("x", { key: "top", value: "t" });
    new Team("team");
    return {};
  };

  it.each([
    ["the top-level one", { child: "c" }, "child"],
    ["the child", { top: "t" }, "top"],
  ])(
    "%s deleted by hand: only it leaves the state, and a destroy deletes the other",
    async (_, values, kept) => {
      setWorld({ top: "t", child: "c" });
      const up = await runProgram(program, live());
      expect(up.errors).toEqual([]);
      setWorld(values);
      const refreshed = await refreshRun(up, live());
      expect(refreshed.errors).toEqual([]);
      expect(refreshed.deleted).toEqual([`${KV}::x`]);
      const left = refreshed.run.registrations.filter((r) => r.name === "x");
      expect(left.map((r) => r.state?.key)).toEqual([kept]);
      const destroyed = await destroyRun(refreshed.run, live());
      expect(destroyed.errors).toEqual([]);
      expect(world().deletes).toEqual([{ id: `kv-${kept}`, value: values[kept as keyof typeof values] }]);
    },
  );
});

it("takes the refreshed state of a resource kept by an initialization failure: no drift the second time, destroy gets it", async () => {
  setWorld({});
  const up = await runProgram(() => {
    new Kv("half", { key: "half", value: "a", initFail: true });
    return {};
  }, live());
  expect(up.errors.map((e) => e.message).join()).toMatch(/init of half failed/);
  setWorld({ half: "b" });
  const first = await refreshRun(up, live());
  expect(first.changed).toEqual([
    { subject: `${KV}::half`, properties: [{ name: "value", before: "a", after: "b" }] },
  ]);
  const second = await refreshRun(first.run, live());
  expect(second.changed).toEqual([]);
  await destroyRun(first.run, live());
  expect(world().deletes).toEqual([{ id: "kv-half", value: "b" }]);
});

it("names a read that throws and keeps that resource as it was; reads the rest", async () => {
  setWorld({});
  const up = await runProgram(() => {
    new Kv("one", { key: "one", value: "1" });
    new Kv("two", { key: "two", value: "2" });
    return {};
  }, live());
  setWorld({ one: "1", two: "22" }, ["one"]);
  const refreshed = await refreshRun(up, live());
  expect(refreshed.errors).toEqual([
    { source: "refresh", subject: `${KV}::one`, message: expect.stringContaining("read of one failed") },
  ]);
  expect(refreshed.read).toEqual([`${KV}::two`]);
  expect(refreshed.changed.map((change) => change.subject)).toEqual([`${KV}::two`]);
  expect(refreshed.run.registrations.find((r) => r.name === "one")).toBe(
    up.registrations.find((r) => r.name === "one"),
  );
});

it("refuses a parallel that is not a whole number of at least 1, naming it", async () => {
  setWorld({ p: "1" });
  const up = await runProgram(() => {
    new Kv("p", { key: "p", value: "1" });
    return {};
  }, live());
  for (const parallel of [NaN, Infinity, 0, -5, 0.5])
    await expect(refreshRun(up, { ...live(), parallel })).rejects.toThrow(
      `refreshRun: parallel must be a whole number of at least 1, not ${parallel}`,
    );
  expect((await refreshRun(up, { ...live(), parallel: 1 })).read).toEqual([`${KV}::p`]);
});

it("finds no drift in a cloudflare.DnsRecord written without proxied (the provider's default is false)", async () => {
  const zoneId = emulator().cloudflare.zones[0].id;
  const name = `edges-${process.pid}.example.com`;
  const up = await runProgram(() => {
    new cloudflare.DnsRecord("hand", { zoneId, name, type: "TXT", content: '"hand"', ttl: 300 });
    return {};
  }, live());
  expect(up.errors).toEqual([]);
  const refreshed = await refreshRun(up, live());
  expect(refreshed.errors).toEqual([]);
  expect(refreshed.changed).toEqual([]);
  await destroyRun(up, live());
});
