import { inspect } from "node:util";
import { createClient, DnsRecord } from "../../provider/client";
import { domainProvider, routeProvider } from "../../provider/dynamic";
import type { TypedResourceProvider } from "../../provider/dynamic/stored-provider";
import { createVerificationProvider } from "../../provider/dynamic/verification-provider";
import { forgetConfig } from "../../provider/dynamic/configured";
import { setClientDefaults } from "../../provider/dynamic/connection";
import { Domain, Route } from "../../provider";
import { publishRecords } from "../support/cloudflare";
import { useEmulator } from "../support/emulator";
import { instantClock } from "../support/fake-clock";
import { runProgram } from "../../testing";
import { configureRequest, loaderTexts } from "../support/providers";
import {
  isHostCallError,
  ProviderHost,
  Props,
  rpcSecret,
  startProviderHost,
  urnFor,
} from "../support/provider-host";

/**
 * Secrets (README "Configuration", docs/reliability.md "Keys stay secret": keys "never reach the state, the stored provider text, logs
 * or error text"). One lifecycle with recognisable keys, run three ways — the
 * providers in-process, the real dynamic-provider host over gRPC (configured with the keys as
 * secrets, as the engine does), and a program under the live mocks — provoking every kind of error
 * on the way; everything the provider emits is collected and searched, case-insensitively, for
 * the API key, the master key and the wrong keys used to provoke auth errors (which the service
 * echoes back in `data.token`).
 */

// 24 and 32 alphanumerics, like Postal's keys, easy to search for.
const API_KEY = "SECRETAPIKEYq7Xw3Lm9Pk2Z";
const MASTER_KEY = "SECRETMASTERKEYr5Tn1Vb6Yc4Hd8Jf2";
const WRONG_KEY = "SECRETWRONGKEYa1b2c3d4e5";
const WRONG_MASTER_KEY = "SECRETWRONGMASTERk9m8n7b6v5c4x3z";
const SECRETS = { API_KEY, MASTER_KEY, WRONG_KEY, WRONG_MASTER_KEY };

const emulator = useEmulator({ apiKey: API_KEY, masterKey: MASTER_KEY, dns: { dkimKeyBits: 1024 } });

/** Everything the provider emitted, by where it came from. */
const emitted: { where: string; text: string }[] = [];

/** A value as text in every way it might be shown: JSON, inspect (hidden fields too), message, stack, causes. */
function render(value: unknown, seen = new Set<unknown>()): string {
  if (value instanceof Error) {
    if (seen.has(value)) return "";
    seen.add(value);
    const own = Object.fromEntries(
      Object.getOwnPropertyNames(value).map((key) => [key, (value as never)[key]]),
    );
    return [
      value.message,
      value.stack ?? "",
      String(value),
      inspect(value, { depth: 20, showHidden: true, getters: true }),
      safeJson(own),
      render((value as { cause?: unknown }).cause, seen),
    ].join("\n");
  }
  return [safeJson(value), inspect(value, { depth: 20, showHidden: true, getters: true })].join("\n");
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch (error) {
    return `unserializable: ${String(error)}`;
  }
}

const emit = (where: string, value: unknown) => emitted.push({ where, text: render(value) });

/** Runs a call that must fail; emits and returns its error. */
async function mustFail(where: string, call: () => Promise<unknown>): Promise<unknown> {
  try {
    const result = await call();
    emit(`${where} (unexpected success)`, result);
  } catch (error) {
    emit(where, error);
    return error;
  }
  throw new Error(`${where}: expected a failure`);
}

/** Runs a call that must succeed; emits and returns its answer. */
async function emitting<T>(where: string, call: () => Promise<T>): Promise<T> {
  const result = await call();
  emit(where, result);
  return result;
}

/** Which secret appears (in any letter case) in which emitted text. */
function leaks(): { where: string; secret: string; excerpt: string }[] {
  const found: { where: string; secret: string; excerpt: string }[] = [];
  for (const { where, text } of emitted) {
    const lower = text.toLowerCase();
    for (const [secret, key] of Object.entries(SECRETS)) {
      const at = lower.indexOf(key.toLowerCase());
      if (at >= 0)
        found.push({ where, secret, excerpt: text.slice(Math.max(0, at - 120), at + key.length + 40) });
    }
  }
  return found;
}

/** Console and process output of the test process while the providers run in it (pulumi.log included). */
function captureOutput(): () => void {
  const restore: (() => void)[] = [];
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      emit(`console.${method}`, args.map((arg) => (typeof arg === "string" ? arg : render(arg))).join(" "));
    });
    restore.push(() => spy.mockRestore());
  }
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      emit(stream === process.stdout ? "stdout" : "stderr", String(chunk));
      return (original as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => (stream.write = original));
  }
  return () => restore.forEach((undo) => undo());
}

function configure(providers: TypedResourceProvider<unknown, unknown>[], config: Record<string, string>) {
  forgetConfig();
  setClientDefaults({ retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 2 } });
  return Promise.all(providers.map((provider) => provider.configure(configureRequest(config))));
}

// The waits between polls take no time: only what the provider emits matters here.
const verificationProvider = createVerificationProvider(instantClock());
const PROVIDERS = [domainProvider, routeProvider, verificationProvider];
let uniq = 0;
const domainName = (prefix: string) => `${prefix}${++uniq}-${process.pid}.example.com`;

it("no key — API key, master key, or a wrong key the service echoes — appears in anything the providers emit", async () => {
  for (const key of [API_KEY, WRONG_KEY]) expect(key).toMatch(/^[A-Za-z0-9]{24}$/);
  for (const key of [MASTER_KEY, WRONG_MASTER_KEY]) expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
  const saved = Object.fromEntries(
    Object.keys(process.env)
      .filter((key) => key.startsWith("EMAIL_DELIVERY_"))
      .map((key) => [key, process.env[key]]),
  );
  for (const key of Object.keys(saved)) delete process.env[key];
  const stopCapture = captureOutput();
  const url = emulator().emailApi.url;
  const good = {
    "emailDelivery:baseUrl": url,
    "emailDelivery:apiKey": API_KEY,
    "emailDelivery:masterKey": MASTER_KEY,
  };
  let host: ProviderHost | undefined;
  try {
    // ---- 1. the providers in-process, as the host calls them --------------------------------------
    await configure(PROVIDERS, good);
    // What the resources store as `__provider` (and the host loads), after configuring.
    const { domain: domainText, route: routeText, verification: verificationText } = loaderTexts();
    const texts = [domainText, routeText, verificationText];
    texts.forEach((text, i) => emit(`stored provider text ${i} (configured in-process)`, text));

    const name = domainName("sec");
    const domainCheck = await emitting("domain check", () => domainProvider.check({}, { name }));
    const domainInputs = { ...domainCheck.inputs, __provider: texts[0] };
    const domain = await emitting("domain create", () => domainProvider.create(domainInputs));
    const domainState = { ...domain.outs, __provider: texts[0] };
    await emitting("domain read", () => domainProvider.read(domain.id, domainState));
    await emitting("domain diff", () =>
      domainProvider.diff(domain.id, domainState, { ...domainInputs, adopt: true }),
    );
    await emitting("domain update", () =>
      domainProvider.update(domain.id, domainState, { ...domainInputs, adopt: true }),
    );
    await mustFail("domain create of an existing name", () => domainProvider.create(domainInputs));

    const domainId = Number(domain.id);
    const routeCheck = await emitting("route check", () =>
      routeProvider.check({}, { name: "support", domainId, endpointId: 1 }),
    );
    const route = await emitting("route create", () => routeProvider.create(routeCheck.inputs));
    await emitting("route read", () => routeProvider.read(route.id, route.outs));
    await emitting("route diff", () =>
      routeProvider.diff(route.id, route.outs, { ...routeCheck.inputs, mode: "Hold" }),
    );
    const routeUpdated = await emitting("route update", () =>
      routeProvider.update(route.id, route.outs, { ...routeCheck.inputs, mode: "Hold" }),
    );
    await emitting("route delete", () => routeProvider.delete(route.id, routeUpdated.outs));
    await mustFail("route create on a missing domain", () =>
      routeProvider.create({ ...routeCheck.inputs, domainId: 999_999 }),
    );
    await mustFail("route update of a missing route (RouteNotFound)", () =>
      routeProvider.update("999999", route.outs, { ...routeCheck.inputs, mode: "Reject" }),
    );

    // Verification: first a timeout (nothing published), then published and verified.
    const shortWait = { domainId, timeoutSeconds: 2, pollIntervalSeconds: 1 };
    const verificationCheck = await emitting("verification check", () =>
      verificationProvider.check({}, shortWait),
    );
    await mustFail("verification timeout", () =>
      verificationProvider.create({ ...verificationCheck.inputs, __provider: texts[2] }),
    );
    await publishRecords(emulator(), domain.outs.dnsRecords as DnsRecord[]);
    const verified = await emitting("verification create", () =>
      verificationProvider.create({ ...verificationCheck.inputs, timeoutSeconds: 20, __provider: texts[2] }),
    );
    expect(verified.outs.verified).toBe(true);
    await emitting("verification read", () => verificationProvider.read(verified.id, verified.outs));
    await emitting("verification read of a missing domain (DomainNotFound → gone)", () =>
      verificationProvider.read("999999", { ...verified.outs, domainId: 999_999 }),
    );
    await mustFail("verification of a missing domain", () =>
      verificationProvider.create({ ...verificationCheck.inputs, domainId: 999_999 }),
    );

    // Validation: check failures, and the service's own ValidationError through the client.
    await emitting("check failures", async () => [
      await domainProvider.check({}, { name: "Bad_Name.example.com", adopt: "yes", zone: "x" }),
      await routeProvider.check({}, { name: "A@b", domainId: -1, endpointId: 1.5, mode: "x" }),
      await verificationProvider.check({}, { domainId: 0, checks: ["bogus"], timeoutSeconds: 0 }),
    ]);
    const client = createClient({
      baseUrl: url,
      apiKey: API_KEY,
      masterKey: MASTER_KEY,
      retry: { maxAttempts: 1 },
    });
    await mustFail("client ValidationError", () => client.createDomain("Bad_Name.example.com"));
    await mustFail("client DomainNotFound", () => client.checkDomain(999_999));
    await emitting("client createServer", () => client.createServer({ name: `Sec ${uniq}`, mode: "Live" }));
    await mustFail("client createServer validation error", () =>
      client.createServer({ name: "", mode: "Nope" }),
    );

    // Wrong keys: the service echoes a refused server key back (InvalidServerAPIKey data.token).
    const wrongMaster = createClient({ baseUrl: url, apiKey: API_KEY, masterKey: WRONG_MASTER_KEY });
    await mustFail("client createServer with a wrong master key", () =>
      wrongMaster.createServer({ name: "Never", mode: "Live" }),
    );
    const wrongKey = createClient({
      baseUrl: url,
      apiKey: WRONG_KEY,
      masterKey: MASTER_KEY,
      retry: { maxAttempts: 1 },
    });
    await mustFail("client with a wrong key (echoed)", () => wrongKey.listDomains());
    await mustFail("client with a wrong key, lower case (echoed)", () =>
      createClient({ baseUrl: url, apiKey: WRONG_KEY.toLowerCase() }).listRoutes(),
    );
    await mustFail("client with a base URL that is the key", () =>
      Promise.resolve().then(() => createClient({ baseUrl: API_KEY, apiKey: API_KEY }).listDomains()),
    );
    await mustFail("client with the key pasted into the base URL", () =>
      Promise.resolve().then(() =>
        createClient({ baseUrl: `postal.example.com/${MASTER_KEY}`, apiKey: API_KEY, masterKey: MASTER_KEY }),
      ),
    );
    await mustFail("client with no connection (refused) to a URL holding the key", () =>
      createClient({
        baseUrl: `http://127.0.0.1:1/${API_KEY}/`,
        apiKey: API_KEY,
        retry: { maxAttempts: 1 },
      }).listDomains(),
    );

    await configure(PROVIDERS, { ...good, "emailDelivery:apiKey": WRONG_KEY });
    texts.push(...Object.values(loaderTexts()));
    texts.slice(3).forEach((text, i) => emit(`stored provider text ${i} (wrong key configured)`, text));
    await mustFail("domain read with a wrong key", () => domainProvider.read(domain.id, domainState));
    await mustFail("domain create with a wrong key", () =>
      domainProvider.create({ name: domainName("wk"), adopt: false }),
    );
    await mustFail("route read with a wrong key", () => routeProvider.read(route.id, route.outs));
    await mustFail("verification with a wrong key", () =>
      verificationProvider.create(verificationCheck.inputs),
    );
    await mustFail("domain delete with a wrong key", () => domainProvider.delete(domain.id, domainState));
    forgetConfig();
    await mustFail("not configured", () => domainProvider.read(domain.id, domainState));

    await configure(PROVIDERS, good);
    await emitting("domain delete", () => domainProvider.delete(domain.id, domainState));

    // ---- 2. the real provider host over gRPC: state as the engine stores it ----------------------
    host = await startProviderHost();
    const h = host;
    const call = <T>(what: string, run: () => Promise<T>) => emitting(`host ${what}`, run);
    const fail = (what: string, run: () => Promise<unknown>) =>
      mustFail(`host ${what}`, async () => {
        try {
          return await run();
        } catch (error) {
          // What the engine gets: the status text and, for init failures, the properties it stores.
          throw isHostCallError(error)
            ? Object.assign(new Error(error.details), { initFailed: error.initFailed })
            : error;
        }
      });
    await call("configure", () =>
      h.configure({
        "emailDelivery:baseUrl": url,
        "emailDelivery:apiKey": rpcSecret(API_KEY),
        "emailDelivery:masterKey": rpcSecret(MASTER_KEY),
      }),
    );
    const urns = {
      domain: urnFor("emailDelivery:Domain", "main"),
      route: urnFor("emailDelivery:Route", "support"),
      verification: urnFor("emailDelivery:DomainVerification", "main"),
    };
    const hostDomain = domainName("host");
    const dIn = (
      await call("domain check", () => h.check(urns.domain, {}, { name: hostDomain, __provider: texts[0] }))
    ).inputs;
    const d = await call("domain create", () => h.create(urns.domain, dIn));
    await call("domain read", () => h.read(d.id, urns.domain, d.properties, dIn));
    await call("domain diff", () => h.diff(d.id, urns.domain, d.properties, { ...dIn, adopt: true }));
    const dState = (
      await call("domain update", () => h.update(d.id, urns.domain, d.properties, { ...dIn, adopt: true }))
    ).properties;
    await fail("domain create of an existing name", () => h.create(urns.domain, dIn));

    const rNews: Props = { name: "help", domainId: Number(d.id), endpointId: 1, __provider: texts[1] };
    const rIn = (await call("route check", () => h.check(urns.route, {}, rNews))).inputs;
    const r = await call("route create", () => h.create(urns.route, rIn));
    await call("route read", () => h.read(r.id, urns.route, r.properties, rIn));
    await call("route diff", () => h.diff(r.id, urns.route, r.properties, { ...rIn, spamMode: "Fail" }));
    const rState = (
      await call("route update", () => h.update(r.id, urns.route, r.properties, { ...rIn, spamMode: "Fail" }))
    ).properties;
    await call("route delete", () => h.delete(r.id, urns.route, rState));
    await fail("route create on a missing domain", () => h.create(urns.route, { ...rIn, domainId: 999_999 }));
    await call("check failures", () =>
      h.check(
        urns.route,
        {},
        { name: "Bad", domainId: "x", endpointId: -1, spam_mode: "Fail", __provider: texts[1] },
      ),
    );

    const vNews: Props = {
      domainId: Number(d.id),
      timeoutSeconds: 2,
      pollIntervalSeconds: 1,
      __provider: texts[2],
    };
    const vIn = (await call("verification check", () => h.check(urns.verification, {}, vNews))).inputs;
    const timedOut = (await fail("verification timeout", () => h.create(urns.verification, vIn))) as {
      initFailed?: { properties: Props };
    };
    // The engine keeps the resource with these properties (an init failure): they are state too.
    expect(timedOut.initFailed?.properties).toMatchObject({ verified: false });
    await h.waitForOutput(/waiting for/);
    await publishRecords(emulator(), d.properties.dnsRecords as DnsRecord[]);
    const vState = (
      await call("verification update", () =>
        h.update(d.id, urns.verification, timedOut.initFailed!.properties, { ...vIn, timeoutSeconds: 20 }),
      )
    ).properties;
    expect(vState.verified).toBe(true);
    await call("verification read", () => h.read(d.id, urns.verification, vState, vIn));
    await fail("verification of a missing domain", () =>
      h.create(urns.verification, { ...vIn, domainId: 999_999 }),
    );

    // The host configures each provider text once; a new text (as after an upgrade) picks up the new config.
    await call("configure with a wrong key", () =>
      h.configure({ "emailDelivery:baseUrl": url, "emailDelivery:apiKey": rpcSecret(WRONG_KEY) }),
    );
    const reconfigured = (props: Props, n: number) => ({
      ...props,
      __provider: `${texts[n]}\n// reconfigured`,
    });
    await fail("domain read with a wrong key", () => h.read(d.id, urns.domain, reconfigured(dState, 0), dIn));
    await fail("domain create with a wrong key", () =>
      h.create(urns.domain, reconfigured({ ...dIn, name: domainName("hwk") }, 0)),
    );
    await fail("route create with a wrong key", () => h.create(urns.route, reconfigured(rIn, 1)));
    await fail("verification read with a wrong key", () =>
      h.read(d.id, urns.verification, reconfigured(vState, 2), vIn),
    );
    await call("configure again", () =>
      h.configure({ "emailDelivery:baseUrl": url, "emailDelivery:apiKey": rpcSecret(API_KEY) }),
    );
    // Config is process-wide (globalThis): the next text loaded sets it back for every provider.
    await call("domain delete", () =>
      h.delete(d.id, urns.domain, { ...dState, __provider: `${texts[0]}\n// configured again` }),
    );
    await h.stop();
    emit("host stdout and stderr (pulumi.log lines)", host.output());
    expect(host.output()).toMatch(/waiting for/);
    host = undefined;

    // ---- 3. a program under the live mocks (registrations = what the engine would store) -------
    const zoneId = emulator().cloudflare.zones[0].id;
    for (const [label, verification] of [
      ["verified", { timeoutSeconds: 20, pollIntervalSeconds: 1 }],
      ["timing out", { timeoutSeconds: 2, pollIntervalSeconds: 1 }],
    ] as const) {
      const programDomain = domainName("prog");
      const run = await runProgram(
        () => {
          const mail = new Domain("mail", {
            name: programDomain,
            cloudflare: label === "verified" ? { zoneId } : undefined,
            verification,
          });
          const help = new Route("help", { name: "help", domainId: mail.domainId, endpointId: 1 });
          return {
            domainId: mail.domainId,
            records: mail.dnsRecords,
            verified: mail.verified,
            routeId: help.routeId,
          };
        },
        { mode: "live", emulator: emulator(), config: good },
      );
      emit(`program (${label}) registrations`, run.registrations);
      emit(`program (${label}) outputs`, run.outputs);
      emit(`program (${label}) errors`, run.errors);
      emit(`program (${label}) provider logs`, run.providerLogs);
      if (label === "verified") expect(run.errors).toEqual([]);
      else expect(run.errors.map((error) => error.message).join("\n")).toMatch(/did not pass verification/);
    }
  } finally {
    await host?.stop();
    stopCapture();
    Object.assign(process.env, saved);
    forgetConfig();
  }

  // The search works: it finds a key where one is, in any case.
  const probe = emitted.length;
  emit("probe", `EMAIL_DELIVERY_API_KEY=${API_KEY.toLowerCase()}`);
  expect(leaks().map((leak) => leak.where)).toEqual(["probe"]);
  emitted.splice(probe);

  expect(emitted.length).toBeGreaterThan(60);
  expect(emitted.filter((entry) => entry.where.startsWith("host ")).length).toBeGreaterThan(20);
  expect(leaks()).toEqual([]);
}, 60_000);

/**
 * A base URL holding the key in another letter case (the URL parser lowercases a host; Postal
 * accepts a key in any case, which is why the client's redact() ignores case). Refused on
 * 127.0.0.1, so nothing leaves the machine.
 */
it("a network error names the base URL without the key in any letter case", async () => {
  const messages: string[] = [];
  for (const variant of [API_KEY.toLowerCase(), API_KEY.toUpperCase()]) {
    const client = createClient({
      baseUrl: `http://127.0.0.1:1/${variant}/`,
      apiKey: API_KEY,
      masterKey: MASTER_KEY,
      retry: { maxAttempts: 1 },
    });
    const error = await client.listDomains().then(
      () => new Error("unexpected success"),
      (e: Error) => e,
    );
    messages.push(render(error));
  }
  // Shown in full when it fails: which message holds the key, in which case.
  const leaking = messages.filter((text) => text.toLowerCase().includes(API_KEY.toLowerCase()));
  expect(leaking.map((text) => text.split("\n")[0])).toEqual([]);
});
