import { promises as dns } from "node:dns";
import { checkSpfLookups, isSpfRecord, mergeSpfIncludes, quoteTxt, unquoteTxt } from "../../provider/dns";
import { claimedRecordProvider } from "../../provider/dynamic";
import { forgetConfig } from "../../provider/dynamic/configured";
import { useEmulator } from "../support/emulator";
import { configureRequest } from "../support/providers";
import { publishAddresses, publishServiceSpf, SERVICE_INCLUDE } from "../support/service-spf";

/**
 * The defects a review found in how the package judged SPF records (each test failed on the code
 * before this file), through the functions the providers call: `checkSpfLookups` (node:dns,
 * pointed at the emulator's DNS server on 127.0.0.1), `mergeSpfIncludes`, `unquoteTxt`, and the
 * claimed-record provider's merge. The corpus (tests/dns/spf-corpus.test.ts) covers each class
 * more widely, and tests/dns/spf-pyspf.test.ts holds it against pyspf.
 */

const emulator = useEmulator();
let counter = 0;
const freshName = () => `rcv${++counter}-${process.pid}.example.com`;

beforeAll(async () => {
  dns.setServers([emulator().dns.address]);
  await publishServiceSpf(emulator());
});

const txt = (name: string, content: string) =>
  emulator().cloudflare.addRecord("example.com", { name, type: "TXT", content: quoteTxt(content), ttl: 300 });
const mx = (name: string, exchange: string, priority: number) =>
  emulator().cloudflare.addRecord("example.com", { name, type: "MX", content: exchange, priority, ttl: 300 });

describe("defect 1: terms separated by a tab", () => {
  it("a merge never puts the include after an all that a tab glues to the term before it", () => {
    // Read by the RFC, `include:_spf.google.com<TAB>~all` is one term; read by a receiver that
    // splits on any white space, an include and ~all: the service's include must come before both.
    for (const record of ["v=spf1 include:_spf.google.com\t~all", "v=spf1 mx ip4:192.0.2.1\t-all"]) {
      const merged = mergeSpfIncludes(record, [SERVICE_INCLUDE]);
      expect(merged.indexOf(`include:${SERVICE_INCLUDE}`)).toBeLessThan(merged.search(/[-~]all/));
    }
  });

  it("is refused with the reason: RFC 7208 separates terms with spaces only, so receivers read an unknown term", async () => {
    const name = freshName();
    await publishAddresses(emulator(), name);
    const { problem, verdict } = await checkSpfLookups("v=spf1 a\t~all", name);
    expect(verdict).toBe("permerror");
    expect(problem).toBe(
      'receivers return permerror for this SPF record: "a\\t~all" holds a tab: terms are separated by spaces ' +
        "only (RFC 7208 §4.6.1, §12), so receivers read it as one term that is not a mechanism or modifier; " +
        "correct or remove that term.",
    );
  });
});

describe("defect 2: unquoteTxt", () => {
  it("reads content that is not a sequence of quoted strings as the raw text it is", () => {
    const raw = 'v=spf1 include:"x" ~all';
    expect(unquoteTxt(raw)).toBe(raw);
    expect(isSpfRecord(unquoteTxt(raw))).toBe(true);
    expect(unquoteTxt('"v=spf1 " "include:x ~all"')).toBe("v=spf1 include:x ~all");
    expect(unquoteTxt('"v=spf1" mx')).toBe('"v=spf1" mx');
  });
});

describe("defect 3: records receivers reject (permerror) were accepted", () => {
  it("`include: domain`: a space after the colon leaves include: without a domain", async () => {
    const name = freshName();
    await txt(`_spf.${name}`, "v=spf1 ip4:192.0.2.0/24 -all");
    const { problem } = await checkSpfLookups(`v=spf1 include: _spf.${name} -all`, name);
    expect(problem).toMatch(/"include:" has nothing after the colon .*\(RFC 7208 §5\.2, §12\)/);
  });

  it("an include of a name without an SPF record, and a redirect to one (§5.2, §6.1)", async () => {
    const name = freshName();
    await txt(`_v.${name}`, "google-site-verification=abc");
    expect((await checkSpfLookups(`v=spf1 include:_v.${name} -all`, name)).problem).toMatch(
      new RegExp(`"include:_v\\.${name}" leads to _v\\.${name}, which has no SPF record .*§5\\.2\\)`),
    );
    expect((await checkSpfLookups(`v=spf1 redirect=gone.${name}`, name)).problem).toMatch(
      /"redirect=gone\..*" leads to .*\(no such name \(NXDOMAIN\)\): a redirect to a domain without one is permerror \(RFC 7208 §6\.1\)/,
    );
  });

  it("loops and self-includes were a lower-bound warning", async () => {
    const name = freshName();
    await txt(`_a.${name}`, `v=spf1 include:${name} -all`);
    expect((await checkSpfLookups(`v=spf1 include:${name} -all`, name)).problem).toMatch(/leads back to/);
    const loop = await checkSpfLookups(`v=spf1 include:_a.${name} -all`, name);
    expect(loop.problem).toContain(
      `"include:${name}" (reached through include:_a.${name}) leads back to ${name}`,
    );
  });

  it("a macro counted as one lookup: include:_spf.%{d} leads to 10 more", async () => {
    const name = freshName();
    await publishAddresses(emulator(), `h.${name}`);
    await txt(`_spf.${name}`, `v=spf1 ${`a:h.${name} `.repeat(10)}-all`);
    const { problem, total } = await checkSpfLookups("v=spf1 include:_spf.%{d} -all", name);
    expect(total).toBe(11);
    expect(problem).toContain(`SPF needs 11 DNS lookups, over the limit of 10 (RFC 7208 §4.6.4)`);
    expect(problem).toContain("(reached through include:_spf.%{d})");
  });

  it("no void-lookup limit: three lookups that find nothing (§4.6.4)", async () => {
    const name = freshName();
    const { problem } = await checkSpfLookups(`v=spf1 a:x.${name} a:y.${name} a:z.${name} -all`, name);
    expect(problem).toMatch(new RegExp(`"a:z\\.${name}" is the third lookup to find nothing.*§4\\.6\\.4`));
  });

  it("more than 10 MX names behind one mx (§4.6.4)", async () => {
    const name = freshName();
    for (let i = 1; i <= 11; i++) await mx(name, `m${i}.${name}`, i);
    const { problem } = await checkSpfLookups("v=spf1 mx -all", name);
    expect(problem).toContain(
      `"mx" leads to 11 MX names at ${name}: more than 10 is permerror (RFC 7208 §4.6.4)`,
    );
  });

  it("a syntax error inside an included record", async () => {
    const name = freshName();
    await txt(`_spf.${name}`, "v=spf1 ip4:192.0.2.0/24 ip4:192.0.2.300 ~all");
    const { problem } = await checkSpfLookups(`v=spf1 include:_spf.${name} -all`, name);
    expect(problem).toContain(
      `"ip4:192.0.2.300" (reached through include:_spf.${name}) has "192.0.2.300", which is not an IPv4 address (RFC 7208 §5.6)`,
    );
  });

  it("where RFC 7208 and pyspf differ, the RFC's verdict with a warning naming the difference", async () => {
    const name = freshName();
    await publishAddresses(emulator(), `h.${name}`);
    const record = `v=spf1 ${`a:h.${name} `.repeat(10)}redirect=_spf.${name} -all`;
    const { problem, warning } = await checkSpfLookups(record, name);
    expect(problem).toBeUndefined();
    expect(warning).toContain(`pyspf counts redirect=_spf.${name} beside all (RFC 7208 §6.1 ignores it)`);
  });
});

describe("defect 4: a problem, never a warning, for what receivers reject", () => {
  it("a record at the limit says so (verdict ok, total = limit), so a caller can refuse one more include", async () => {
    const name = freshName();
    await publishAddresses(emulator(), `h.${name}`);
    const check = await checkSpfLookups(`v=spf1 ${`a:h.${name} `.repeat(10)}-all`, name);
    expect(check).toMatchObject({
      verdict: "ok",
      total: 10,
      limit: 10,
      lowerBound: false,
      problem: undefined,
    });
  });

  it("only what cannot be known is a warning: a DNS failure is temperror", async () => {
    // The emulator refuses names outside its zones: a server failure, not an answer (§2.6.6).
    const check = await checkSpfLookups("v=spf1 include:_spf.google.com -all", freshName());
    expect(check).toMatchObject({ verdict: "temperror", problem: undefined, lowerBound: true });
    expect(check.warning).toContain("Receivers would return temperror for now: include:_spf.google.com");
  });

  it("the claimed-record provider refuses to merge into such a record, and changes nothing", async () => {
    forgetConfig();
    await claimedRecordProvider.configure(
      configureRequest({
        "cloudflare:apiToken": emulator().cloudflare.apiToken,
        "cloudflare:baseUrl": emulator().cloudflare.url,
      }),
    );
    const name = freshName();
    await publishAddresses(emulator(), name);
    const theirs = await txt(name, "v=spf1 a\t-all");
    const inputs = {
      zoneId: emulator().cloudflare.zones[0].id,
      purpose: "spf",
      name,
      type: "TXT",
      content: quoteTxt(`v=spf1 a mx include:${SERVICE_INCLUDE} ~all`),
      ttl: 300,
      comment: "pulumi email-delivery/test: email spf",
      policy: "merge",
      owner: "email-delivery/test",
    };
    const checked = await claimedRecordProvider.check({}, inputs);
    expect(checked.failures ?? []).toEqual([]);
    await expect(claimedRecordProvider.create(checked.inputs)).rejects.toThrow(
      /"a\\t-all" holds a tab: terms are separated by spaces only \(RFC 7208 §4\.6\.1, §12\).*Nothing was changed in the zone\./,
    );
    const after = emulator()
      .cloudflare.records("example.com")
      .find((record) => record.id === theirs.id);
    expect(unquoteTxt(after!.content)).toBe("v=spf1 a\t-all");
  });
});
