import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import type { RouteMode, SpamMode } from "../../provider/client";
import type { StoredResource, StoredStateFixture } from "../fixtures/stored-state/capture";
import { publishRecords } from "../support/cloudflare";
import { clientFor, useEmulator } from "../support/emulator";
import { ProviderHost, rpcSecret, startProviderHost, urnFor } from "../support/provider-host";
import { loaderTexts } from "../support/providers";

/**
 * The contract with stored state (docs/upgrading.md): what every released version stored in a
 * stack (captured in tests/fixtures/stored-state/<version>.json, never edited) must keep working
 * with the current package. Each fixture's provider texts are loaded by the real provider host in
 * this repository (where they find this package, built, by name) and run as the engine runs them
 * on old state: `refresh` (read), the next `up` with an unchanged program (diff: no change), and
 * `destroy` (delete). The objects are made afresh on the emulator and the fixture's ids mapped to
 * theirs; everything else is the fixture as stored.
 */
const FIXTURES = path.resolve(__dirname, "../fixtures/stored-state");
const versions = readdirSync(FIXTURES)
  .filter((file) => file.endsWith(".json"))
  .map((file) => file.slice(0, -".json".length));

const emulator = useEmulator();

it("a fixture exists for this version", () => {
  const { version } = JSON.parse(readFileSync(path.resolve(__dirname, "../../package.json"), "utf8")) as {
    version: string;
  };
  expect(versions).toContain(version);
});

describe.each(versions)("state stored by %s", (version) => {
  const fixture = JSON.parse(
    readFileSync(path.join(FIXTURES, `${version}.json`), "utf8"),
  ) as StoredStateFixture;
  const stored = (type: string) => fixture.resources.find((resource) => resource.type.endsWith(`:${type}`))!;
  let host: ProviderHost;

  beforeAll(async () => {
    host = await startProviderHost();
    await host.configure({
      "emailDelivery:baseUrl": emulator().emailApi.url,
      "emailDelivery:apiKey": rpcSecret(emulator().emailApi.apiKey),
    });
  });
  afterAll(() => host.stop());

  it("refreshes, shows no change to the same program, and deletes, with the current package", async () => {
    const domain = stored("Domain");
    const route = stored("Route");
    const verification = stored("DomainVerification");

    // The objects, as the service holds them now.
    const client = clientFor(emulator());
    const made = await client.createDomain(domain.outputs.name as string);
    await publishRecords(emulator(), made.dnsRecords!);
    const madeRoute = (
      await client.createRoute({
        name: route.outputs.name as string,
        domainId: made.domain.id,
        endpointId: route.outputs.endpointId as number,
        mode: route.outputs.mode as RouteMode,
        spamMode: route.outputs.spamMode as SpamMode,
      })
    ).route;
    const ids: Record<string, { id: number; uuid?: string }> = {
      domainId: { id: made.domain.id, uuid: made.domain.uuid },
      routeId: { id: madeRoute.id, uuid: madeRoute.uuid },
    };
    /** A stored resource with the fixture's ids replaced by the new objects'. */
    const rebased = (resource: StoredResource) => {
      const swap = (values: Record<string, unknown>) => {
        const copy = { ...values };
        if ("domainId" in copy) copy.domainId = ids.domainId.id;
        if ("routeId" in copy) copy.routeId = ids.routeId.id;
        if ("uuid" in copy) copy.uuid = ("routeId" in copy ? ids.routeId : ids.domainId).uuid;
        return copy;
      };
      const id = resource === route ? ids.routeId.id : ids.domainId.id;
      return { id: String(id), inputs: swap(resource.inputs), outputs: swap(resource.outputs) };
    };

    for (const resource of [domain, verification, route]) {
      const { id, inputs, outputs } = rebased(resource);
      const urn = urnFor(resource.type.split("dynamic/")[1], resource.name);

      // refresh: the same object, every stored property still there
      const read = await host.read(id, urn, outputs, inputs);
      expect(read.id).toBe(id);
      expect(Object.keys(read.properties).sort()).toEqual(Object.keys(outputs).sort());
      expect(read.properties.__provider).toBe(resource.outputs.__provider);
      if (resource === domain) expect(read.properties.dnsRecords).toEqual(domain.outputs.dnsRecords);
      if (resource === verification) expect(read.properties.verified).toBe(true);

      // `up` with the same program: no change, whether it stores this version's text or the old one
      const kind = resource === domain ? "domain" : resource === route ? "route" : "verification";
      for (const text of [loaderTexts()[kind], resource.inputs.__provider]) {
        expect(await host.diff(id, urn, outputs, { ...inputs, __provider: text })).toMatchObject({
          changes: "DIFF_NONE",
          replaces: [],
        });
      }
    }

    // destroy, dependents first, as the engine orders it
    for (const resource of [route, verification, domain]) {
      const { id, outputs } = rebased(resource);
      await host.delete(id, urnFor(resource.type.split("dynamic/")[1], resource.name), outputs);
    }
    expect(emulator().state.routes.some((r) => r.id === madeRoute.id)).toBe(false);
    expect(emulator().state.domains.some((d) => d.id === made.domain.id)).toBe(false);
  });
});
