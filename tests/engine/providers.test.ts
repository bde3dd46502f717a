import { Emulator } from "../../emulator";
import { quoteTxt } from "../../provider";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import {
  HostCallError,
  isHostCallError,
  ProviderHost,
  Props,
  rpcSecret,
  SERIALIZED_BEFORE_THE_LOADER,
  startProviderHost,
  UNKNOWN,
  urnFor,
} from "../support/provider-host";
import { ALL_CHECKS_OK } from "../support/checks";
import { loaderTexts } from "../support/providers";

/**
 * The engine path: the three providers as the resources store them (`__provider` loader texts,
 * which load this package by name, here its build), run by the real dynamic-provider host from
 * `@pulumi/pulumi` over gRPC, configured only through Configure (the host has no EMAIL_DELIVERY_*
 * variables), against the emulator. Each test follows what the engine does for one step of
 * `pulumi up`.
 */

const CHECK_NAMES = ["spf", "dkim", "mx", "returnPath"];

interface PublishedRecord {
  type: string;
  name: string;
  content: string;
  priority?: number;
}

/** Publishes a domain's `dnsRecords` output through the Cloudflare stand-in, as the DnsRecord children would. */
async function publish(emulator: Emulator, records: PublishedRecord[]): Promise<void> {
  const zone = emulator.cloudflare.zones[0];
  for (const record of records) {
    const response = await fetch(`${emulator.cloudflare.url}/zones/${zone.id}/dns_records`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${emulator.cloudflare.apiToken}`,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({
        ttl: 300,
        proxied: false,
        type: record.type,
        name: record.name,
        // TXT as the Domain component sends it: quoted strings of at most 255 bytes.
        content: record.type === "TXT" ? quoteTxt(record.content) : record.content,
        priority: record.priority,
      }),
    });
    const body = (await response.json()) as { success: boolean; errors: unknown[] };
    if (!body.success)
      throw new Error(`publishing ${record.type} ${record.name}: ${JSON.stringify(body.errors)}`);
  }
}

/** The rejection of a call, which must be a HostCallError. */
async function failure(call: Promise<unknown>): Promise<HostCallError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isHostCallError(error)) throw new Error(`expected the call to fail, got ${String(error)}`);
  return error;
}

const emulator = useEmulator();

describe("providers through the real dynamic-provider host", () => {
  let host: ProviderHost;
  const texts = loaderTexts();
  /** Every answer and error the host gave, to prove the API key is in none of them. */
  const answers: unknown[] = [];

  /**
   * A new Pulumi command (e.g. the `pulumi refresh` after a change made outside Pulumi): a fresh
   * host, as the engine starts one per command, so nothing it listed before the change is reused.
   */
  const newCommand = async () => {
    await host?.stop();
    host = recording(await startProviderHost(), answers);
    // As the engine sends stack config: namespaced keys, the secret one wrapped as a secret.
    await host.configure({
      "emailDelivery:baseUrl": emulator().emailApi.url,
      "emailDelivery:apiKey": rpcSecret(emulator().emailApi.apiKey),
    });
  };

  beforeAll(() => newCommand());
  afterAll(async () => {
    await host?.stop();
  });

  describe("Domain", () => {
    const urn = urnFor("emailDelivery:Domain", "main");
    const news = (name: string, extra: Props = {}) => ({ name, ...extra, __provider: texts.domain });

    it("check: a failure per bad property, with a reason", async () => {
      const { failures } = await host.check(urn, {}, news("Mail.Example.com", { adopt: "yes", nmae: "x" }));
      expect(failures).toEqual([
        { property: "name", reason: expect.stringContaining("lowercase") },
        { property: "adopt", reason: expect.stringContaining("true or false") },
        { property: "nmae", reason: expect.stringContaining("not an input") },
      ]);
      expect((await host.check(urn, {}, news("nodot"))).failures).toEqual([
        { property: "name", reason: expect.stringContaining("two labels") },
      ]);
    });

    it("check: defaults filled; unknown values pass", async () => {
      expect(await host.check(urn, {}, news("a.example.com"))).toEqual({
        inputs: { name: "a.example.com", adopt: false, __provider: texts.domain },
        failures: [],
      });
      expect(await host.check(urn, {}, news(UNKNOWN))).toEqual({
        inputs: { name: UNKNOWN, adopt: false, __provider: texts.domain },
        failures: [],
      });
    });

    it("create → read → diff → update → delete → read gone", async () => {
      const name = uniqueDomain("eng");
      const { inputs } = await host.check(urn, {}, news(name));
      const created = await host.create(urn, inputs);
      expect(created.id).toMatch(/^[1-9]\d*$/);
      const state = created.properties;
      expect(state).toMatchObject({
        domainId: Number(created.id),
        uuid: expect.any(String),
        name,
        spfStatus: null,
        dkimStatus: null,
        mxStatus: null,
        returnPathStatus: null,
        createdAt: expect.any(String),
        __provider: texts.domain,
      });
      const records = state.dnsRecords as (PublishedRecord & { purpose: string })[];
      expect([...new Set(records.map((r) => r.purpose))].sort()).toEqual([
        "dkim",
        "mx",
        "return_path",
        "spf",
      ]);

      // Refresh: the same object; the records (known only from create) are carried through.
      const read = await host.read(created.id, urn, state, inputs);
      expect(read.id).toBe(created.id);
      expect(read.properties).toEqual(state);
      expect(read.inputs).toEqual({ name, adopt: false, __provider: texts.domain });

      // A new provider text alone (a package upgrade) is no change.
      const edited = `${texts.domain}\n// upgraded`;
      expect(await host.diff(created.id, urn, state, { ...inputs, __provider: edited })).toMatchObject({
        changes: "DIFF_NONE",
        replaces: [],
      });
      expect(await host.diff(created.id, urn, state, news(uniqueDomain("other"), { adopt: false }))).toEqual({
        changes: "DIFF_SOME",
        replaces: ["name"],
        stables: [],
        deleteBeforeReplace: true,
      });
      expect(await host.diff(created.id, urn, state, news(UNKNOWN, { adopt: false }))).toMatchObject({
        changes: "DIFF_SOME",
        replaces: ["name"],
        deleteBeforeReplace: true,
      });

      // Only `adopt` can change in place; nothing is sent, the domain is kept.
      const updated = await host.update(created.id, urn, state, news(name, { adopt: true }));
      expect(updated.properties).toEqual({ ...state, adopt: true });

      await host.delete(created.id, urn, updated.properties);
      expect((await clientFor(emulator()).listDomains()).some((d) => d.id === Number(created.id))).toBe(
        false,
      );
      expect(await host.read(created.id, urn, updated.properties)).toMatchObject({ id: "" });
      // Deleting what is already gone succeeds.
      await host.delete(created.id, urn, updated.properties);
    });

    it("state whose stored provider is serialized code (a build before the loader) is rewritten by the next up", async () => {
      for (const [kind, props] of [
        ["domain", { name: uniqueDomain("old") }],
        ["route", { name: "old", domainId: 1, endpointId: 1 }],
        ["verification", { domainId: 1 }],
      ] as const) {
        const kindUrn = urnFor(`emailDelivery:${kind}`, "old");
        const { inputs } = await host.check(kindUrn, {}, { ...props, __provider: texts[kind] });
        // As stored: outputs equal to the inputs (verified, for the verification), old text.
        const olds = { ...inputs, verified: true, __provider: SERIALIZED_BEFORE_THE_LOADER };
        // The program now stores the loader: the one difference is the stored provider itself.
        expect(await host.diff("1", kindUrn, olds, inputs)).toMatchObject({
          changes: "DIFF_SOME",
          replaces: [],
        });
        // Once rewritten, the same state is no change.
        expect(await host.diff("1", kindUrn, { ...olds, __provider: texts[kind] }, inputs)).toMatchObject({
          changes: "DIFF_NONE",
        });
      }
      // The update that follows sends nothing to the service and stores the loader.
      const name = uniqueDomain("old");
      const domain = await host.create(urn, (await host.check(urn, {}, news(name))).inputs);
      await publish(emulator(), domain.properties.dnsRecords as PublishedRecord[]);
      const domainId = Number(domain.id);
      const made = [
        [urn, domain, "domain"],
        [urnFor("emailDelivery:Route", "old"), undefined, "route"],
        [urnFor("emailDelivery:DomainVerification", "old"), undefined, "verification"],
      ] as const;
      for (const [kindUrn, existing, kind] of made) {
        const props =
          kind === "route"
            ? { name: "old", domainId, endpointId: 1 }
            : kind === "verification"
              ? { domainId, pollIntervalSeconds: 1 }
              : { name };
        const { inputs } = await host.check(kindUrn, {}, { ...props, __provider: texts[kind] });
        const created = existing ?? (await host.create(kindUrn, inputs));
        const oldState = { ...created.properties, __provider: SERIALIZED_BEFORE_THE_LOADER };
        const requests = emulator().requests.all().length;
        const updated = await host.update(created.id, kindUrn, oldState, inputs);
        expect(updated.properties).toEqual({ ...created.properties, __provider: texts[kind] });
        expect(emulator().requests.all().length).toBe(requests);
      }
    });

    it("read after an out-of-band deletion returns no id (Pulumi drops it)", async () => {
      const { inputs } = await host.check(urn, {}, news(uniqueDomain("oob")));
      const created = await host.create(urn, inputs);
      await clientFor(emulator()).deleteDomain(Number(created.id));
      await newCommand();
      expect(await host.read(created.id, urn, created.properties)).toMatchObject({ id: "" });
    });
  });

  describe("Route", () => {
    const urn = urnFor("emailDelivery:Route", "support");
    const news = (props: Props) => ({ ...props, __provider: texts.route });
    let domainId: number;
    let otherDomainId: number;

    beforeAll(async () => {
      const client = clientFor(emulator());
      domainId = (await client.createDomain(uniqueDomain("route"))).domain.id;
      otherDomainId = (await client.createDomain(uniqueDomain("route"))).domain.id;
      await newCommand(); // the domains exist before the command, as when a stack already has them
    });

    it("check: a failure per bad property, with a reason", async () => {
      const { failures } = await host.check(
        urn,
        {},
        news({ name: "Support", domainId: -3, endpointId: 1.5, mode: "Forward", spamMode: "Drop" }),
      );
      expect(failures).toEqual([
        { property: "name", reason: expect.stringContaining("lowercase") },
        { property: "domainId", reason: expect.stringContaining("positive whole number") },
        { property: "endpointId", reason: expect.stringContaining("positive whole number") },
        { property: "mode", reason: expect.stringContaining("Endpoint, Bounce, Hold, Reject") },
        { property: "spamMode", reason: expect.stringContaining("Mark, Quarantine, Fail") },
      ]);
      expect((await host.check(urn, {}, news({ name: "a@b.example.com" }))).failures).toEqual([
        { property: "name", reason: expect.stringContaining('without "@domain"') },
        { property: "domainId", reason: "Route needs domainId" },
        { property: "endpointId", reason: "Route needs endpointId" },
      ]);
    });

    it("check: defaults filled; an unknown domainId (domain created in the same run) passes", async () => {
      expect(await host.check(urn, {}, news({ name: "*", domainId: UNKNOWN, endpointId: 1 }))).toEqual({
        inputs: {
          name: "*",
          domainId: UNKNOWN,
          endpointId: 1,
          mode: "Endpoint",
          spamMode: "Mark",
          adopt: false,
          __provider: texts.route,
        },
        failures: [],
      });
    });

    it("create → read → diff → update → delete → read gone", async () => {
      const { inputs, failures } = await host.check(
        urn,
        {},
        news({ name: "support", domainId, endpointId: 1 }),
      );
      expect(failures).toEqual([]);
      const created = await host.create(urn, inputs);
      expect(created.id).toMatch(/^[1-9]\d*$/);
      const state = created.properties;
      expect(state).toMatchObject({
        routeId: Number(created.id),
        uuid: expect.any(String),
        name: "support",
        domainId,
        endpointId: 1,
        mode: "Endpoint",
        spamMode: "Mark",
        __provider: texts.route,
      });

      const read = await host.read(created.id, urn, state, inputs);
      expect(read).toMatchObject({ id: created.id, properties: state });
      expect(read.inputs).toMatchObject({ name: "support", domainId, endpointId: 1, mode: "Endpoint" });

      const diff = (changes: Props) => host.diff(created.id, urn, state, { ...inputs, ...changes });
      expect(await diff({ __provider: `${texts.route}\n// upgraded` })).toMatchObject({
        changes: "DIFF_NONE",
        replaces: [],
      });
      for (const change of [{ name: "help" }, { endpointId: 2 }, { mode: "Hold" }, { spamMode: "Fail" }]) {
        expect(await diff(change)).toEqual({
          changes: "DIFF_SOME",
          replaces: [],
          stables: [],
          deleteBeforeReplace: false,
        });
      }
      expect(await diff({ domainId: otherDomainId })).toEqual({
        changes: "DIFF_SOME",
        replaces: ["domainId"],
        stables: [],
        deleteBeforeReplace: true,
      });
      expect(await diff({ domainId: UNKNOWN })).toMatchObject({
        changes: "DIFF_SOME",
        replaces: ["domainId"],
      });

      const next = { ...inputs, name: "help", endpointId: 2, spamMode: "Quarantine" };
      const updated = await host.update(created.id, urn, state, next);
      expect(updated.properties).toMatchObject({
        routeId: Number(created.id),
        name: "help",
        endpointId: 2,
        mode: "Endpoint",
        spamMode: "Quarantine",
        __provider: texts.route,
      });
      const onService = (await clientFor(emulator()).listRoutes()).find((r) => r.id === Number(created.id));
      expect(onService).toMatchObject({ name: "help", endpointId: 2, spamMode: "Quarantine" });

      await host.delete(created.id, urn, updated.properties);
      expect(await host.read(created.id, urn, updated.properties)).toMatchObject({ id: "" });
      await host.delete(created.id, urn, updated.properties);
    });

    it("read: a route whose domain was deleted out of band is gone", async () => {
      const client = clientFor(emulator());
      const ownDomain = (await client.createDomain(uniqueDomain("route"))).domain.id;
      const { inputs } = await host.check(
        urn,
        {},
        news({ name: "gone", domainId: ownDomain, endpointId: 1 }),
      );
      const created = await host.create(urn, inputs);
      await newCommand(); // the domain was made outside this host
      expect(await host.read(created.id, urn, created.properties)).toMatchObject({ id: created.id });
      await client.deleteDomain(ownDomain);
      await newCommand();
      expect(await host.read(created.id, urn, created.properties)).toMatchObject({ id: "" });
    });
  });

  describe("DomainVerification", () => {
    const urn = urnFor("emailDelivery:DomainVerification", "main");
    const news = (props: Props) => ({ ...props, __provider: texts.verification });
    const domainUrn = urnFor("emailDelivery:Domain", "verified");
    let domain: { id: string; properties: Props };

    beforeAll(async () => {
      // The domain comes through the host too, so its dnsRecords output is what gets published.
      const { inputs } = await host.check(
        domainUrn,
        {},
        { name: uniqueDomain("verify"), __provider: texts.domain },
      );
      domain = await host.create(domainUrn, inputs);
    });

    it("check: a failure per bad property, with a reason", async () => {
      const { failures } = await host.check(
        urn,
        {},
        news({ domainId: 0, checks: ["spf", "dkim", "bogus"], timeoutSeconds: 0, pollIntervalSeconds: -1 }),
      );
      expect(failures).toEqual([
        { property: "domainId", reason: expect.stringContaining("positive whole number") },
        { property: "checks", reason: expect.stringContaining("spf, dkim, mx, returnPath") },
        { property: "timeoutSeconds", reason: expect.stringContaining("between") },
        { property: "pollIntervalSeconds", reason: expect.stringContaining("between") },
      ]);
      const longPoll = await host.check(
        urn,
        {},
        news({ domainId: 1, timeoutSeconds: 5, pollIntervalSeconds: 10 }),
      );
      expect(longPoll.failures).toEqual([
        { property: "pollIntervalSeconds", reason: expect.stringContaining("timeoutSeconds") },
      ]);
    });

    it("check: defaults filled (all four checks)", async () => {
      expect(await host.check(urn, {}, news({ domainId: 7 }))).toEqual({
        inputs: {
          domainId: 7,
          checks: CHECK_NAMES,
          timeoutSeconds: 600,
          pollIntervalSeconds: 5,
          maxPollIntervalSeconds: 5,
          whenReceiversReject: "fail",
          __provider: texts.verification,
        },
        failures: [],
      });
    });

    it("times out without records: ErrorResourceInitFailed keeps the id; then passes once records are published", async () => {
      const domainId = Number(domain.id);
      const { inputs } = await host.check(
        urn,
        {},
        news({ domainId, timeoutSeconds: 2, pollIntervalSeconds: 1 }),
      );

      const started = Date.now();
      const error = await failure(host.create(urn, inputs));
      // Within 10 times its 2 s timeout, whatever the load: not the default 10-minute wait.
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(error.code).toBe(2);
      expect(error.details).toContain("DKIM");
      // The object counts as created: the engine keeps it in state with these properties.
      expect(error.initFailed).toEqual({
        id: domain.id,
        properties: expect.objectContaining({
          domainId,
          verified: false,
          dkimStatus: "Missing",
          __provider: texts.verification,
        }),
        reasons: [expect.stringContaining("DKIM")],
      });
      // Progress lines name what is still failing.
      expect(await host.waitForOutput(/waiting for .*DKIM/)).toMatch(/left/);

      // The next `up` diffs against the kept state: not verified, so it waits again (an update).
      const kept = error.initFailed!.properties;
      expect(await host.diff(domain.id, urn, kept, inputs)).toMatchObject({
        changes: "DIFF_SOME",
        replaces: [],
      });

      await publish(emulator(), domain.properties.dnsRecords as PublishedRecord[]);
      const resumed = await host.update(domain.id, urn, kept, { ...inputs, timeoutSeconds: 30 });
      expect(resumed.properties).toMatchObject({ domainId, verified: true, dkimStatus: "OK" });

      const created = await host.create(urn, { ...inputs, timeoutSeconds: 30 });
      expect(created.id).toBe(domain.id);
      expect(created.properties).toEqual({
        domainId,
        checks: CHECK_NAMES,
        timeoutSeconds: 30,
        pollIntervalSeconds: 1,
        maxPollIntervalSeconds: 5,
        whenReceiversReject: "fail",
        verified: true,
        ...ALL_CHECKS_OK,
        __provider: texts.verification,
      });

      // Verified and unchanged: no diff. Refresh re-checks.
      expect(
        await host.diff(created.id, urn, created.properties, { ...inputs, timeoutSeconds: 30 }),
      ).toMatchObject({
        changes: "DIFF_NONE",
      });
      expect(await host.read(created.id, urn, created.properties)).toMatchObject({
        id: created.id,
        properties: { verified: true },
      });
      await host.delete(created.id, urn, created.properties);

      // The domain deleted out of band: the verification is gone on refresh.
      await clientFor(emulator()).deleteDomain(domainId);
      expect(await host.read(created.id, urn, created.properties)).toMatchObject({ id: "" });
    });
  });

  it("the API key appears in no stored provider text, answer, error or host output", () => {
    const key = emulator().emailApi.apiKey;
    expect(answers.length).toBeGreaterThan(20);
    for (const text of Object.values(texts)) expect(text).not.toContain(key);
    expect(JSON.stringify(answers)).not.toContain(key);
    expect(host.output()).not.toContain(key);
  });
});

describe("connection settings", () => {
  it("without config or environment, the first call that needs the service names both", async () => {
    const host = await startProviderHost();
    try {
      const props = {
        name: uniqueDomain("nocfg"),
        adopt: false,
        __provider: loaderTexts().domain,
      };
      // check() needs no connection, so preview of inputs still works.
      expect((await host.check(urnFor("emailDelivery:Domain", "d"), {}, props)).failures).toEqual([]);
      const error = await failure(host.create(urnFor("emailDelivery:Domain", "d"), props));
      expect(error.details).toMatch(/emailDelivery:baseUrl/);
      expect(error.details).toMatch(/EMAIL_DELIVERY_BASE_URL/);

      // A wrong key (Postal echoes a rejected key in its answer): an error naming no key, and a
      // refresh that fails rather than dropping the resource. A new provider text is configured
      // afresh, as after an upgrade.
      const wrongKey = "WrongApiKey0000000000042";
      await host.configure({
        "emailDelivery:baseUrl": emulator().emailApi.url,
        "emailDelivery:apiKey": wrongKey,
      });
      const existing = (await clientFor(emulator()).createDomain(uniqueDomain("auth"))).domain;
      const upgraded = { ...props, __provider: `${props.__provider}\n// upgraded` };
      const readError = await failure(
        host.read(String(existing.id), urnFor("emailDelivery:Domain", "d"), {
          ...upgraded,
          domainId: existing.id,
        }),
      );
      const createError = await failure(host.create(urnFor("emailDelivery:Domain", "d"), upgraded));
      for (const failed of [readError, createError]) {
        expect(failed.details).not.toMatch(/not configured/);
        expect(failed.details).not.toContain(wrongKey);
        expect(failed.initFailed).toBeUndefined();
      }
      expect(host.output()).not.toContain(wrongKey);
    } finally {
      await host.stop();
    }
  });

  it("falls back to EMAIL_DELIVERY_BASE_URL / EMAIL_DELIVERY_API_KEY when not configured", async () => {
    const host = await startProviderHost({
      env: {
        EMAIL_DELIVERY_BASE_URL: emulator().emailApi.url,
        EMAIL_DELIVERY_API_KEY: emulator().emailApi.apiKey,
      },
    });
    try {
      await host.configure({}); // the stack has no emailDelivery:* config
      const name = uniqueDomain("envcfg");
      const props = { name, adopt: false, __provider: loaderTexts().domain };
      const created = await host.create(urnFor("emailDelivery:Domain", "d"), props);
      expect(created.properties).toMatchObject({ name, domainId: Number(created.id) });
      expect(JSON.stringify(created)).not.toContain(emulator().emailApi.apiKey);
      expect(host.output()).not.toContain(emulator().emailApi.apiKey);
    } finally {
      await host.stop();
    }
  });
});

/** The host with every answer and error also pushed to `answers`. */
function recording(host: ProviderHost, answers: unknown[]): ProviderHost {
  const wrap =
    <A extends unknown[], R>(method: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        const result = await method(...args);
        answers.push(result);
        return result;
      } catch (error) {
        answers.push(
          isHostCallError(error) ? { details: error.details, initFailed: error.initFailed } : String(error),
        );
        throw error;
      }
    };
  return {
    ...host,
    check: wrap(host.check),
    diff: wrap(host.diff),
    create: wrap(host.create),
    read: wrap(host.read),
    update: wrap(host.update),
    delete: wrap(host.delete),
  };
}
