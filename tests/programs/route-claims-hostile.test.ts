import * as pulumi from "@pulumi/pulumi";
import { Route } from "../../provider";
import { ServiceDomain } from "../../provider/resources/service-domain";
import { routeProvider } from "../../provider/dynamic";
import { UNKNOWN as RPC_UNKNOWN } from "../../provider/inputs";
import { runProgram, UNKNOWN_MARKER } from "../../testing";

const ROUTE = "email-delivery:Route";

class TeamA extends pulumi.ComponentResource {
  constructor(name: string) {
    super("acme:mail:TeamA", name);
    new Route("inbox", { name: "support", domainId: 7, endpointId: 1 }, { parent: this });
    this.registerOutputs({});
  }
}

class TeamB extends pulumi.ComponentResource {
  constructor(name: string) {
    super("acme:mail:TeamB", name);
    new Route("inbox", { name: "support", domainId: 7, endpointId: 2 }, { parent: this });
    this.registerOutputs({});
  }
}

describe("program: route claims, beyond two top-level names", () => {
  it("two Route resources of one name under different parents, declaring one route, fail at preview", async () => {
    // Distinct URNs (…acme:mail:TeamA$…:Route::inbox and …TeamB$…::inbox): two resources that
    // would fight over one route, as the check exists to catch, though their names are equal.
    const run = await runProgram(
      () => {
        new TeamA("a");
        new TeamB("b");
        return {};
      },
      { mode: "preview" },
    );
    // The second is never registered: nothing would be sent for it.
    expect(run.ofType(ROUTE)).toHaveLength(1);
    const messages = run.errors.map((error) => error.message).join("\n");
    expect(messages).toContain(
      'Route "inbox" declares the route "support" on domain 7, which another Route resource also named "inbox" (under another parent) already declares.',
    );
  });

  it("a name unknown at preview does not make a known domainId unknown (a preview replacement)", async () => {
    const run = await runProgram(
      () => {
        const other = new ServiceDomain("other", { name: "other.example.com" });
        // e.g. a name derived from another resource's output, unknown until it is updated.
        new Route("support", { name: other.uuid.apply(() => "support"), domainId: 7, endpointId: 1 });
        return {};
      },
      { mode: "preview" },
    );
    const route = run.get(ROUTE, "support");
    expect(route.inputs.name).toBe(UNKNOWN_MARKER);
    // What the provider's diff sees against a route already in state on domain 7.
    const news = {
      ...route.inputs,
      name: RPC_UNKNOWN,
      domainId: route.inputs.domainId === UNKNOWN_MARKER ? RPC_UNKNOWN : route.inputs.domainId,
    };
    const olds = {
      routeId: 3,
      uuid: "r-3",
      name: "help",
      domainId: 7,
      endpointId: 1,
      mode: "Endpoint",
      spamMode: "Mark",
      adopt: false,
    };
    const diff = await routeProvider.diff("3", olds, news);
    expect(diff.replaces).toEqual([]);
    expect(route.inputs.domainId).toBe(7);
  });

  it("a secret name does not make domainId secret", async () => {
    const run = await runProgram(
      () => {
        new Route("support", { name: pulumi.secret("support"), domainId: 7, endpointId: 1 });
        return {};
      },
      { mode: "preview" },
    );
    expect(run.get(ROUTE, "support").secretInputs).not.toContain("domainId");
  });
});
