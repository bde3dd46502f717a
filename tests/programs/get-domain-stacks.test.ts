import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as pulumi from "@pulumi/pulumi";
import { Emulator } from "../../emulator";
import { Domain, getDomainOutput, Route } from "../../provider";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import { Registration, runProgram, RunOptions } from "../../testing";

/**
 * A domain owned by one stack, routes in another (docs/existing-records.md, "Domain owned by another stack"): the
 * routes' stack finds the domain with `getDomainOutput` and never registers a Domain, so only the
 * mail stack writes the domain and its records. Under the live mocks, preview and live.
 */

const ROUTE = "email-delivery:Route";
/** Anything that would make this stack write a domain: the component or the service domain. */
const DOMAIN_TYPES = [
  "email-delivery:index:Domain",
  "email-delivery:Domain",
  "email-delivery:DomainVerification",
];

/** The routes' stack: one route on the domain another stack manages. */
function routesStack(emulator: Emulator, name: pulumi.Input<string>) {
  return () => {
    const mail = getDomainOutput({ name });
    const support = new Route("support", {
      name: "support",
      domainId: mail.domainId,
      endpointId: emulator.state.endpoints[0].id,
    });
    return { domainId: mail.domainId, verified: mail.verified, routeId: support.routeId };
  };
}

/** The stack config both modes use, for runs without an emulator (with one, the kit fills it in). */
const connection = (emulator: Emulator): RunOptions["config"] => ({
  "emailDelivery:baseUrl": emulator.emailApi.url,
  "emailDelivery:apiKey": emulator.emailApi.apiKey,
});

/** What the routes' stack registered of the domain kinds (none expected). */
const domainRegistrations = (registrations: Registration[]) =>
  registrations.filter((r) => DOMAIN_TYPES.some((type) => r.type === type || r.type.endsWith(`/${type}`)));

/** Endpoints the service received that write domains. */
const domainWrites = (emulator: Emulator) =>
  emulator.requests.all().filter((r) => /^domains\/(create|delete|check)$/.test(r.endpoint));

/** Runs with console.warn watched: reading the secret key must not warn. */
async function withWarnings<T>(run: () => Promise<T>): Promise<{ result: T; warnings: string[] }> {
  const spy = jest.spyOn(console, "warn").mockImplementation(() => undefined);
  try {
    const result = await run();
    return { result, warnings: spy.mock.calls.map((args) => args.map(String).join(" ")) };
  } finally {
    spy.mockRestore();
  }
}

describe("program: routes on a domain another stack manages, preview", () => {
  const emulator = useEmulator();

  it("gives the Route the domain's id (known in the preview), registers no Domain and only lists", async () => {
    const name = uniqueDomain("shared");
    const made = await emulator().emailApi.addDomain(name);
    emulator().requests.clear();

    const { result: run, warnings } = await withWarnings(() =>
      runProgram(routesStack(emulator(), name), { mode: "preview", config: connection(emulator()) }),
    );

    expect(run.errors).toEqual([]);
    const route = run.get(ROUTE, "support");
    expect(route.inputs).toMatchObject({ name: "support", domainId: made.id });
    // The key is secret config; the id read with it is not secret.
    expect(route.secretInputs).toEqual([]);
    expect(domainRegistrations(run.registrations)).toEqual([]);
    expect(run.outputs).toMatchObject({ domainId: made.id, verified: false });
    expect(emulator().requests.counts()).toEqual({ "domains/list": 1 });
    expect(warnings.filter((w) => /secret|apiKey/i.test(w))).toEqual([]);
  });

  it("with an emulator, asks its service, never the one EMAIL_DELIVERY_BASE_URL names", async () => {
    const name = uniqueDomain("env");
    const made = await clientFor(emulator()).createDomain(name);
    const elsewhere = http.createServer((request, response) => {
      asked.push(request.url ?? "");
      response.writeHead(500).end();
    });
    const asked: string[] = [];
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    const saved = { ...process.env };
    process.env.EMAIL_DELIVERY_BASE_URL = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    process.env.EMAIL_DELIVERY_API_KEY = "ElsewhereKey000000000001";
    try {
      const run = await runProgram(routesStack(emulator(), name), { mode: "preview", emulator: emulator() });
      expect(run.errors).toEqual([]);
      expect(run.outputs).toMatchObject({ domainId: made.domain.id });
      expect(asked).toEqual([]);
    } finally {
      process.env = saved;
      await new Promise((resolve) => elsewhere.close(resolve));
    }
  });

  it("a name unknown in the preview leaves the id unknown, sending nothing", async () => {
    emulator().requests.clear();
    const run = await runProgram(
      routesStack(emulator(), pulumi.output(pulumi.unknown as unknown as string)),
      { mode: "preview", config: connection(emulator()) },
    );
    expect(run.errors).toEqual([]);
    expect(run.get(ROUTE, "support").inputs.domainId).toBe("[unknown]");
    expect(emulator().requests.all()).toEqual([]);
  });

  it("a domain the other stack has not made fails the preview with the lookup's message", async () => {
    const name = uniqueDomain("not-yet");
    emulator().requests.clear();
    const run = await runProgram(routesStack(emulator(), name), {
      mode: "preview",
      config: connection(emulator()),
    });
    const messages = run.errors.map((error) => error.message).join("\n");
    expect(messages).toContain(
      `Domain "${name}" was not found on the email service at ${emulator().emailApi.url}`,
    );
    expect(messages).not.toContain(emulator().emailApi.apiKey);
    expect(run.ofType(ROUTE).filter((r) => r.status === "created")).toEqual([]);
    expect(emulator().requests.counts()).toEqual({ "domains/list": 1 });
  });

  it("a bad name fails the preview naming `name`, before any request", async () => {
    emulator().requests.clear();
    const run = await runProgram(routesStack(emulator(), pulumi.output("Mail.Example.com")), {
      mode: "preview",
      config: connection(emulator()),
    });
    expect(run.errors.map((error) => error.message).join("\n")).toContain(
      'getDomain({ name: "Mail.Example.com" }): name: must be lowercase (the service refuses upper case): use "mail.example.com". Nothing was sent.',
    );
    expect(emulator().requests.all()).toEqual([]);
  });
});

describe("program: routes on a domain another stack manages, live", () => {
  const emulator = useEmulator();

  it("the mail stack makes and verifies the domain; the routes' stack creates its route on that id", async () => {
    const name = uniqueDomain("mail");
    const mailStack = await runProgram(
      () => {
        const domain = new Domain("mail", {
          name,
          cloudflare: { zoneId: emulator().cloudflare.zones[0].id },
          verification: { timeoutSeconds: 20, pollIntervalSeconds: 1 },
        });
        return { domainId: domain.domainId, verified: domain.verified };
      },
      { mode: "live", emulator: emulator(), stack: "mail" },
    );
    expect(mailStack.errors).toEqual([]);
    expect(mailStack.outputs.verified).toBe(true);
    const domainId = mailStack.outputs.domainId as number;

    emulator().requests.clear();
    const { result: run, warnings } = await withWarnings(() =>
      runProgram(routesStack(emulator(), name), { mode: "live", emulator: emulator(), stack: "production" }),
    );

    expect(run.errors).toEqual([]);
    const route = run.get(ROUTE, "support");
    expect(route.inputs).toMatchObject({ domainId });
    expect(route.secretInputs).toEqual([]);
    expect(route.state).toMatchObject({ domainId, name: "support" });
    expect(run.outputs).toMatchObject({ domainId, verified: true, routeId: Number(route.id) });
    expect(domainRegistrations(run.registrations)).toEqual([]);

    // On the service: the route on the mail stack's domain; the domain untouched by this stack.
    expect(emulator().emailApi.routes()).toContainEqual(
      expect.objectContaining({ id: Number(route.id), name: "support", domain_id: domainId }),
    );
    expect(domainWrites(emulator())).toEqual([]);
    expect(emulator().requests.count("routes/create")).toBe(1);
    expect(warnings.filter((w) => /secret|apiKey/i.test(w))).toEqual([]);
  });
});
