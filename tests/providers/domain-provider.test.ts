import { domainProvider } from "../../provider/dynamic";
import { domainAnswerLost } from "../support/answer-lost";
import { forgetSharedLists } from "../../provider/client/process-runtime";
import { forgetConfig } from "../../provider/dynamic/configured";
import { UNKNOWN } from "../../provider/inputs";
import type { RequestLogEntry } from "../../emulator";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import { configureFor, configureRequest, failure } from "../support/providers";

const punycodeReason = (label: string) =>
  `has a label that starts with "xn--" but is not valid punycode ("${label}"): give the punycode form of the international name, e.g. "xn--bcher-kva.example" for "bücher.example"`;

/** A logged request as `endpoint` or `endpoint:fault`. */
const endpointAndFault = (e: RequestLogEntry) => `${e.endpoint}${e.fault ? `:${e.fault}` : ""}`;

/** What a logged request created, deleted or changed on the service, if anything. */
const changed = (e: RequestLogEntry) => e.effect?.created ?? e.effect?.deleted ?? e.effect?.updated;

/** domainProvider called directly, as the provider host calls it, against the emulator. */
describe("domainProvider", () => {
  const emulator = useEmulator();
  beforeEach(() => configureFor(emulator(), [domainProvider]));
  afterEach(() => emulator().faults.set([]));

  const create = (name: string, adopt = false) => domainProvider.create({ name, adopt, __provider: "text" });

  describe("check", () => {
    it("fills defaults and passes a good name through", async () => {
      expect(await domainProvider.check({}, { name: "mail.example.com", __provider: "p" })).toEqual({
        inputs: { name: "mail.example.com", adopt: false },
        failures: [],
      });
    });

    it.each([
      ["Mail.Example.com", 'must be lowercase (the service refuses upper case): use "mail.example.com"'],
      ["mail.example.com.", 'must not end with a dot: use "mail.example.com"'],
      ["localhost", 'must have at least two labels, e.g. "mail.example.com"'],
      ["mail..example.com", 'must not have two dots in a row: use "mail.example.com"'],
      [".mail.example.com", 'must not start with a dot: use "mail.example.com"'],
      ["-mail.example.com", 'has a label that starts or ends with "-" ("-mail"): remove the "-"'],
      [
        "mail_x.example.com",
        'has "_" in "mail_x": a domain name has only a-z, 0-9, "-" and dots: remove it, or write "-"',
      ],
      [
        "my domain.example.com",
        'has a space ("my domain"): a domain name has none: remove it, or write "-" ("my-domain.example.com")',
      ],
      [
        "mail\tx.example.com",
        'has a tab ("mail\tx"): a domain name has none: remove it, or write "-" ("mail-x.example.com")',
      ],
      [" mail.example.com", 'starts with a space: remove it ("mail.example.com")'],
      ["mail.example.com\n", 'ends with a line break: remove it ("mail.example.com")'],
      [
        "bücher.example.com",
        'has characters outside ASCII ("bücher"): give the international name in punycode: "xn--bcher-kva.example.com"',
      ],
      ["10.0.0.1", 'looks like an IP address: give a domain name, e.g. "mail.example.com"'],
      ["", 'must not be empty: give the domain\'s name, e.g. "mail.example.com"'],
      ["xn--zz.example.com", punycodeReason("xn--zz")],
      ["mail.xn--abc.example.com", punycodeReason("xn--abc")],
      // Decodes, but to plain ASCII: the name is "abc", which needs no punycode.
      ["xn--abc-.example.com", 'has a label that starts or ends with "-" ("xn--abc-"): remove the "-"'],
      ["xn--abc-def.example.com", punycodeReason("xn--abc-def")],
      // Decodes to "Ü", which IDNA does not allow in a name (it would be "ü": "xn--tda").
      ["xn--wca.example.com", punycodeReason("xn--wca")],
      // Decodes to "u" + a combining mark, not the normalized "ü".
      ["xn--uber-vwc.example.com", punycodeReason("xn--uber-vwc")],
    ])("refuses %j with a reason naming the property", async (name, reason) => {
      expect((await domainProvider.check({}, { name })).failures).toEqual([{ property: "name", reason }]);
    });

    it.each([
      "xn--bcher-kva.example.com",
      "xn--tda.example.com",
      "mail.xn--mnchen-3ya.de",
      "xn--fiq228c.xn--fiqs8s",
      "xn--ls8h.la",
    ])("accepts the international name %j in punycode", async (name) => {
      expect((await domainProvider.check({}, { name })).failures).toEqual([]);
    });

    it("reports every bad property, and properties that are not inputs", async () => {
      const result = await domainProvider.check({}, { name: 42, adopt: "yes", zone: "x" });
      expect(result.failures).toEqual([
        { property: "name", reason: "must be a string, not number 42" },
        { property: "adopt", reason: 'must be true or false, not the text "yes"' },
        { property: "zone", reason: "is not an input of Domain (inputs: name, adopt)" },
      ]);
      expect((await domainProvider.check({}, {})).failures).toEqual([
        { property: "name", reason: "Domain needs name" },
      ]);
    });

    it("lets a value unknown at preview through", async () => {
      expect(await domainProvider.check({}, { name: UNKNOWN })).toEqual({
        inputs: { name: UNKNOWN, adopt: false },
        failures: [],
      });
    });
  });

  describe("diff", () => {
    const olds = { name: "mail.example.com", adopt: false, domainId: 1, __provider: "old text" };

    it("sees no change when only the serialized provider or `adopt` changed", async () => {
      expect(
        await domainProvider.diff("1", olds, {
          name: "mail.example.com",
          adopt: true,
          __provider: "new text",
        }),
      ).toEqual({
        changes: false,
        replaces: [],
        deleteBeforeReplace: false,
      });
    });

    it("replaces on a new name, deleting first (names are unique), and on an unknown one", async () => {
      const expected = { changes: true, replaces: ["name"], deleteBeforeReplace: true };
      expect(await domainProvider.diff("1", olds, { name: "other.example.com", adopt: false })).toEqual(
        expected,
      );
      expect(await domainProvider.diff("1", olds, { name: UNKNOWN, adopt: false })).toEqual(expected);
    });
  });

  describe("create, read, delete", () => {
    it("creates with one request, no list before it, and records the DNS records", async () => {
      const name = uniqueDomain();
      emulator().requests.clear();
      const { id, outs } = await create(name);
      expect(emulator().requests.counts()).toEqual({ "domains/create": 1 });
      expect(id).toBe(String(outs.domainId));
      expect(outs).toMatchObject({
        name,
        adopt: false,
        spfStatus: null,
        uuid: expect.any(String),
        createdAt: expect.any(String),
      });
      expect(outs.dnsRecords.map((r: { purpose: string }) => r.purpose).sort()).toEqual([
        "dkim",
        "mx",
        "mx",
        "return_path",
        "spf",
      ]);
      expect(JSON.stringify(outs)).not.toContain(emulator().emailApi.apiKey);
    });

    it("reads what the service holds and keeps the records it cannot list", async () => {
      const { id, outs } = await create(uniqueDomain());
      await clientFor(emulator()).checkDomain(outs.domainId);
      const read = await domainProvider.read(id, { ...outs, __provider: "text" });
      expect(read).toEqual({
        id,
        props: {
          ...outs,
          spfStatus: "Missing",
          dkimStatus: "Missing",
          mxStatus: "Missing",
          returnPathStatus: "Missing",
        },
        inputs: { name: outs.name, adopt: false },
      });
    });

    it("reads a domain deleted outside Pulumi as gone, and deletes it again without error", async () => {
      const { id, outs } = await create(uniqueDomain());
      await clientFor(emulator()).deleteDomain(outs.domainId);
      expect(await domainProvider.read(id, outs)).toEqual({ id: undefined, props: {} });
      await expect(domainProvider.delete(id, outs)).resolves.toBeUndefined();
    });

    it("never reads a domain as gone on an auth failure or an outage", async () => {
      const { id, outs } = await create(uniqueDomain());
      await configureFor(emulator(), [domainProvider], "WrongKey0000000000000001");
      expect(await failure(domainProvider.read(id, outs))).toMatchObject({
        kind: "auth",
        code: "InvalidServerAPIKey",
      });

      await configureFor(emulator(), [domainProvider]);
      // A refresh's provider host starts with no list: this read must ask the service.
      forgetSharedLists();
      emulator().faults.set([{ endpoints: "domains/list", rate503: 1 }]);
      expect(await failure(domainProvider.read(id, outs))).toMatchObject({
        kind: "transient",
        httpStatus: 503,
      });
      emulator().faults.set([]);
      expect((await domainProvider.read(id, outs)).id).toBe(id);
    });

    it("deletes", async () => {
      const { id, outs } = await create(uniqueDomain());
      await domainProvider.delete(id, outs);
      expect((await clientFor(emulator()).listDomains()).some((d) => d.id === outs.domainId)).toBe(false);
    });
  });

  describe("a domain that already exists", () => {
    it("fails without adopt, saying why and what to do: the service refuses the create, then a list names the holder", async () => {
      const name = uniqueDomain();
      const existing = await clientFor(emulator()).createDomain(name);
      const before = structuredClone(emulator().state.domains.find((d) => d.id === existing.domain.id));
      emulator().requests.clear();
      const error = await failure(create(name));
      expect(error.message).toContain(
        `Domain ${name} already exists on the email service (id ${existing.domain.id}, created ${existing.domain.createdAt})`,
      );
      expect(error.message).toContain("set `adopt: true`");
      // The create, refused (it changed nothing), then the list that names the holder.
      expect(
        emulator()
          .requests.all()
          .map((e) => [e.endpoint, changed(e)]),
      ).toEqual([
        ["domains/create", undefined],
        ["domains/list", undefined],
      ]);
      expect(emulator().state.domains.filter((d) => d.name === name)).toEqual([before]);
    });

    it("never deletes or claims one made by someone else moments before when its own create is lost: fails naming it", async () => {
      // Another stack (or a person) made the domain, with a route, 2 s before this call.
      const name = uniqueDomain("shared");
      const theirs = await clientFor(emulator()).createDomain(name);
      const theirRoute = await clientFor(emulator()).createRoute({
        name: "inbox",
        domainId: theirs.domain.id,
        endpointId: 1,
      });
      const before = structuredClone(emulator().state.domains.find((d) => d.id === theirs.domain.id));
      // This call's create is lost on the way (dropped before the service handled it).
      emulator().faults.set([{ endpoints: "domains/create", dropRate: 1 }]);
      emulator().requests.clear();
      const error = await failure(create(name));
      expect(error.message).toBe(domainAnswerLost(name, theirs.domain.id, theirs.domain.createdAt));
      // The create and the list after its loss, nothing else: no delete, no second create.
      expect(emulator().requests.all().map(endpointAndFault)).toEqual([
        "domains/create:drop",
        "domains/list",
      ]);
      expect(emulator().state.domains.filter((d) => d.name === name)).toEqual([before]);
      expect((await clientFor(emulator()).listRoutes()).map((r) => r.id)).toContain(theirRoute.route.id);
    });

    it("is taken over with adopt, without a create request", async () => {
      const name = uniqueDomain();
      const existing = await clientFor(emulator()).createDomain(name);
      emulator().requests.clear();
      const { id, outs } = await create(name, true);
      expect(id).toBe(String(existing.domain.id));
      expect(outs).toMatchObject({ name, adopt: true, dnsRecords: [] });
      expect(emulator().requests.count("domains/create")).toBe(0);
    });

    it("is created when adopt finds nothing to take over", async () => {
      const { outs } = await create(uniqueDomain(), true);
      expect(outs.dnsRecords).toHaveLength(5);
    });
  });

  it("fails when the create's answer is lost and the domain it made is there, naming it and leaving it as it is", async () => {
    // The create is done, then its answer lost: the domain found may be this call's or another
    // stack's made meanwhile, so it is neither recorded nor deleted (its DNS records are lost too).
    emulator().faults.set([{ endpoints: "domains/create", commitThenDropRate: 1, times: 1 }]);
    emulator().requests.clear();
    const name = uniqueDomain("lost");
    const error = await failure(create(name));
    const held = emulator().state.domains.filter((d) => d.name === name);
    expect(held).toHaveLength(1);
    expect(error.message).toBe(domainAnswerLost(name, held[0].id, held[0].createdAt));
    const requests = emulator().requests.all();
    expect(requests.map(endpointAndFault)).toEqual(["domains/create:commit-then-drop", "domains/list"]);
    expect(requests.map(changed)).toEqual([{ kind: "domain", id: held[0].id, name }, undefined]);
  });

  it("gets its records when the create's answer is lost and nothing was made: it lists, then creates again", async () => {
    emulator().faults.set([{ endpoints: "domains/create", dropRate: 1, times: 1 }]);
    emulator().requests.clear();
    const name = uniqueDomain("lost");
    const { id, outs } = await create(name);
    expect(outs.dnsRecords).toHaveLength(5);
    const held = emulator().state.domains.filter((d) => d.name === name);
    expect(held.map((d) => String(d.id))).toEqual([id]);
    expect(emulator().requests.all().map(endpointAndFault)).toEqual([
      "domains/create:drop",
      "domains/list",
      "domains/create",
    ]);
  });

  it("fails naming both the stack config key and the environment variable when nothing is configured", async () => {
    forgetConfig();
    const saved = { url: process.env.EMAIL_DELIVERY_BASE_URL, key: process.env.EMAIL_DELIVERY_API_KEY };
    delete process.env.EMAIL_DELIVERY_BASE_URL;
    delete process.env.EMAIL_DELIVERY_API_KEY;
    try {
      const error = await failure(create(uniqueDomain()));
      expect(error.message).toBe(
        "The email delivery base URL is not configured: run `pulumi config set emailDelivery:baseUrl …` for this stack, or set the EMAIL_DELIVERY_BASE_URL environment variable.",
      );
      await domainProvider.configure(configureRequest({ "emailDelivery:baseUrl": emulator().emailApi.url }));
      expect((await failure(create(uniqueDomain()))).message).toContain(
        "`pulumi config set --secret emailDelivery:apiKey …` for this stack, or set the EMAIL_DELIVERY_API_KEY environment variable",
      );
      process.env.EMAIL_DELIVERY_API_KEY = emulator().emailApi.apiKey; // the environment is the fallback
      expect((await create(uniqueDomain())).outs.dnsRecords).toHaveLength(5);
    } finally {
      if (saved.url === undefined) delete process.env.EMAIL_DELIVERY_BASE_URL;
      else process.env.EMAIL_DELIVERY_BASE_URL = saved.url;
      if (saved.key === undefined) delete process.env.EMAIL_DELIVERY_API_KEY;
      else process.env.EMAIL_DELIVERY_API_KEY = saved.key;
    }
  });
});
