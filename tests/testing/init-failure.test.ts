import * as pulumi from "@pulumi/pulumi";
import { useEmulator } from "../support/emulator";
import { destroyRun, runProgram } from "../../testing";

/**
 * A dynamic resource whose create made its object and then failed, throwing `{ id, properties,
 * reasons }` (as the package's verification and claimed records do): the engine keeps it in state
 * (an initialization failure) and `pulumi destroy` deletes it. destroyRun must too, else what the
 * create made (here a record in the stand-in's zone) is left behind.
 */

const emulator = useEmulator();

class HalfMade extends pulumi.dynamic.Resource {}

function recordProgram(url: string, token: string, zoneId: string, name: string) {
  const provider: pulumi.dynamic.ResourceProvider = {
    async create() {
      const response = await fetch(`${url}/zones/${zoneId}/dns_records`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ type: "TXT", name, content: '"made"', ttl: 300 }),
      });
      const { result } = (await response.json()) as { result: { id: string } };
      throw Object.assign(new Error("made, then failed to initialize"), {
        id: result.id,
        properties: { zoneId },
        reasons: ["made, then failed to initialize"],
      });
    },
    async delete(id: string, props: { zoneId: string }) {
      await fetch(`${url}/zones/${props.zoneId}/dns_records/${id}`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${token}` },
      });
    },
  };
  return () => {
    new HalfMade(provider, "half-made", {});
    return {};
  };
}

it("destroyRun deletes a dynamic resource kept in state by an initialization failure", async () => {
  const { url, apiToken, zones } = emulator().cloudflare;
  const name = `half-made-${process.pid}.example.com`;
  const held = () => emulator().state.cloudflare.records.filter((r) => r.name === name).length;

  const run = await runProgram(recordProgram(url, apiToken, zones[0].id, name), {
    mode: "live",
    emulator: emulator(),
  });
  expect(run.errors.map((e) => e.message).join("\n")).toContain("made, then failed to initialize");
  expect(held()).toBe(1);

  const destroyed = await destroyRun(run, { mode: "live", emulator: emulator() });
  expect(destroyed.errors).toEqual([]);
  expect(destroyed.deleted).toEqual(["pulumi-nodejs:dynamic:Resource::half-made"]);
  expect(held()).toBe(0);
});
