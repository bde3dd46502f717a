import * as pulumi from "@pulumi/pulumi";
import { useEmulator } from "../support/emulator";
import { destroyRun, runProgram } from "../../testing";

/**
 * A delete that fails in destroyRun: as `pulumi destroy --continue-on-error` does, what the
 * failed resource depends on stays (here the record a dependent's delete could not remove still
 * points at it), named in the errors, and everything else is deleted; a later destroyRun, once the
 * delete works, finishes the job.
 */

const emulator = useEmulator();

class TxtRecord extends pulumi.dynamic.Resource {
  declare readonly id: pulumi.Output<string>;
}

function program(url: string, token: string, zoneId: string, prefix: string, failDeletesOf: string) {
  const provider: pulumi.dynamic.ResourceProvider = {
    async create(inputs: { name: string; zoneId: string }) {
      const response = await fetch(`${url}/zones/${inputs.zoneId}/dns_records`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ type: "TXT", name: inputs.name, content: '"x"', ttl: 300 }),
      });
      const { result } = (await response.json()) as { result: { id: string } };
      return { id: result.id, outs: inputs };
    },
    async delete(id: string, props: { name: string; zoneId: string }) {
      // A marker record in the zone makes this name's deletes fail (set by the test, read here).
      const marker = await fetch(`${url}/zones/${props.zoneId}/dns_records?name=${failDeletesOf}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      const { result } = (await marker.json()) as { result: unknown[] };
      if (props.name.startsWith(`${prefix}-route`) && result.length > 0) throw new Error("delete refused");
      await fetch(`${url}/zones/${props.zoneId}/dns_records/${id}`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${token}` },
      });
    },
  };
  return () => {
    const domain = new TxtRecord(provider, "domain", { name: `${prefix}-domain.example.com`, zoneId });
    new TxtRecord(provider, "route", { name: `${prefix}-route.example.com`, zoneId, domain: domain.id });
    new TxtRecord(provider, "other", { name: `${prefix}-other.example.com`, zoneId });
    return {};
  };
}

it("keeps what a resource whose delete failed depends on, deletes the rest, and a second destroyRun finishes", async () => {
  const { url, apiToken, zones } = emulator().cloudflare;
  const prefix = `destroy-failure-${process.pid}`;
  const marker = `${prefix}-refuse.example.com`;
  const held = () =>
    emulator()
      .state.cloudflare.records.filter((r) => r.name.startsWith(`${prefix}-`) && r.name !== marker)
      .map((r) => r.name.slice(prefix.length + 1).split(".")[0])
      .sort();
  const options = { mode: "live" as const, emulator: emulator() };
  const run = await runProgram(program(url, apiToken, zones[0].id, prefix, marker), options);
  expect(run.errors).toEqual([]);
  expect(held()).toEqual(["domain", "other", "route"]);

  const refuse = await fetch(`${url}/zones/${zones[0].id}/dns_records`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ type: "TXT", name: marker, content: '"refuse"', ttl: 300 }),
  });
  const { result } = (await refuse.json()) as { result: { id: string } };

  const first = await destroyRun(run, options);
  expect(first.deleted).toEqual(["pulumi-nodejs:dynamic:Resource::other"]);
  expect(first.errors).toEqual([
    {
      source: "destroy",
      subject: "pulumi-nodejs:dynamic:Resource::route",
      message: expect.stringContaining("delete refused"),
    },
    {
      source: "destroy",
      subject: "pulumi-nodejs:dynamic:Resource::domain",
      message: "not deleted: pulumi-nodejs:dynamic:Resource::route depends on it and was not deleted",
    },
  ]);
  expect(held()).toEqual(["domain", "route"]);

  await fetch(`${url}/zones/${zones[0].id}/dns_records/${result.id}`, {
    method: "DELETE",
    headers: { Authorization: `Bearer ${apiToken}` },
  });
  const second = await destroyRun(run, options);
  expect(second.errors).toEqual([]);
  expect(held()).toEqual([]);
});
