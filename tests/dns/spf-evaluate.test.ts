import {
  countSpfLookups,
  expandMacros,
  isSpfRecord,
  macroStringProblem,
  readSpfTerms,
  SpfResolver,
  spfLookupProblem,
  spfRecordCountProblem,
  spfUnresolvedWarning,
} from "../../provider/dns";
import { publishRecords } from "../support/cloudflare";
import { useEmulator } from "../support/emulator";
import { dnsError, withAddresses, zoneResolver } from "../support/spf-zone";
import { spfResolverAt } from "../support/dns-client";

/**
 * The receivers' judgement of a record (spf-syntax.ts, spf-macro.ts, spf-evaluate.ts,
 * spf-lookup-count.ts) over tables of DNS records; tests/dns/spf-corpus.test.ts runs the corpus
 * through a DNS server, and tests/dns/spf-pyspf.test.ts holds it against pyspf.
 */

const judge = (record: string, resolver: SpfResolver, domain = "example.com") =>
  countSpfLookups(record, resolver, { domain });

describe("readSpfTerms (RFC 7208 §12, nothing tolerated)", () => {
  it.each([
    [
      "v=spf1 mx\t~all",
      "mx\t~all",
      /holds a tab: terms are separated by spaces only \(RFC 7208 §4\.6\.1, §12\)/,
    ],
    ["v=spf1 include: spf.example.com -all", "include:", /nothing after the colon.*§5\.2/],
    ["v=spf1 include -all", "include", /names no domain/],
    ["v=spf1 exists:%{i} -all", "exists:%{i}", undefined],
    ["v=spf1 a:example -all", "a:example", /end in a dot and a top label/],
    ["v=spf1 a:192.0.2.1 -all", "a:192.0.2.1", /top label/],
    ["v=spf1 a/33 -all", "a/33", /prefix length "\/33"/],
    ["v=spf1 mx//129 -all", "mx//129", /prefix length "\/\/129"/],
    ["v=spf1 ptr/24 -all", "ptr/24", /ptr does not take/],
    ["v=spf1 ip4:192.0.2.01 -all", "ip4:192.0.2.01", /not an IPv4 address/],
    ["v=spf1 ip4:192.0.2.0/24/1 -all", "ip4:192.0.2.0/24/1", /at most one prefix length/],
    ["v=spf1 ip6:2001:db8::/129 -all", "ip6:2001:db8::/129", /not one of \/0 to \/128/],
    ["v=spf1 ip6:fe80::1%eth0 -all", "ip6:fe80::1%eth0", /not an IPv6 address/],
    ["v=spf1 ~all:x", "~all:x", /which takes nothing/],
    ["v=spf1 =a -all", "=a", /not a mechanism or a modifier/],
    ["v=spf1 exp=a.example.com -all EXP=b.example.com", "EXP=b.example.com", /second exp= .*§6/],
    ["v=spf1 x-note=%{c} -all", "x-note=%{c}", /only in explanation text/],
    [
      "v=spf1 include:%{d0}.example.com -all",
      "include:%{d0}.example.com",
      /MUST be nonzero \(RFC 7208 §7\.3\)/,
    ],
    ["v=spf1 include:50%.example.com -all", "include:50%.example.com", /is not a macro/],
    ["v=spf1 include:spf.exämple.com -all", "include:spf.exämple.com", /not ASCII/],
  ])("%j stops at %j", (record, term, rule) => {
    const read = readSpfTerms(record);
    if (rule === undefined) {
      expect(read).toHaveProperty("terms");
      return;
    }
    expect(read).toEqual({ error: { term, rule: expect.stringMatching(rule) } });
  });

  it("reads every mechanism and modifier, with qualifiers, prefix lengths and any letter case", () => {
    const read = readSpfTerms(
      "v=spf1  +A:Mail.example.com/24//64 -MX//64 ?ip4:192.0.2.0/24 ~ip6:2001:db8::/32 ptr:%{d} " +
        "exists:%{ir}.%{v}._spf.%{d2} include:_spf.example.com. Redirect=_spf.%{o} x-y=%%%_%- ",
    );
    expect("terms" in read && read.terms.map((term) => ({ ...term, text: undefined }))).toEqual(
      [
        {
          kind: "mechanism",
          qualifier: "+",
          name: "a",
          domainSpec: "Mail.example.com",
          cidr4: 24,
          cidr6: 64,
        },
        { kind: "mechanism", qualifier: "-", name: "mx", cidr4: undefined, cidr6: 64 },
        { kind: "mechanism", qualifier: "?", name: "ip4", cidr4: 24 },
        { kind: "mechanism", qualifier: "~", name: "ip6", cidr6: 32 },
        {
          kind: "mechanism",
          qualifier: "+",
          name: "ptr",
          domainSpec: "%{d}",
          cidr4: undefined,
          cidr6: undefined,
        },
        { kind: "mechanism", qualifier: "+", name: "exists", domainSpec: "%{ir}.%{v}._spf.%{d2}" },
        { kind: "mechanism", qualifier: "+", name: "include", domainSpec: "_spf.example.com." },
        { kind: "modifier", name: "redirect", writtenName: "Redirect", value: "_spf.%{o}" },
        { kind: "modifier", name: "x-y", writtenName: "x-y", value: "%%%_%-" },
      ].map((term) => ({ ...term, text: undefined })),
    );
  });
});

describe("SPF macros (RFC 7208 §7)", () => {
  const values = { d: "mail.example.com", o: "example.com", v: "in-addr" };
  it.each([
    ["_spf.%{d}", "_spf.mail.example.com"],
    ["%{d2}", "example.com"],
    ["%{dr}", "com.example.mail"],
    ["%{d2r}", "example.mail"],
    ["%{o}._x.%{v}.example.net.", "example.com._x.in-addr.example.net"],
    ["%{D}", "mail.example.com"],
    ["a%%b%_c%-d.example.com", "a%b c%20d.example.com"],
  ])("%s expands to %s", (spec, name) => {
    expect(expandMacros(spec, values)).toEqual({ name });
  });

  it("names the macros whose values depend on the message, and expands nothing then", () => {
    expect(expandMacros("%{l}.%{ir}._spf.%{d}", values)).toEqual({ unknown: ["%{l}", "%{ir}"] });
    expect(expandMacros("%{h}.example.com", values)).toEqual({ unknown: ["%{h}"] });
    expect(expandMacros("%{d}", {})).toEqual({ unknown: ["%{d}"] });
  });

  it("cuts a name over 253 characters from the left, by labels (§7.3)", () => {
    const long = `${"a".repeat(60)}.`.repeat(5) + "%{d}";
    const { name } = expandMacros(long, values) as { name: string };
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name.endsWith(".mail.example.com")).toBe(true);
    expect(name.startsWith("a")).toBe(true);
  });

  it("accepts only what §7.1 allows", () => {
    expect(macroStringProblem("%{ir}.%{v}.%{d2}._spf.%{o}")).toBeUndefined();
    expect(macroStringProblem("%{q}")).toMatch(/unknown macro letter "q"/);
    expect(macroStringProblem("%{d")).toMatch(/is not a macro/);
    expect(macroStringProblem("a b")).toMatch(/a space is not allowed/);
  });
});

describe("countSpfLookups", () => {
  it("counts nested includes and redirects, each term with its cost", async () => {
    const { resolver, asked } = zoneResolver({
      "example.com": withAddresses(),
      "_spf.google.com": {
        txt: [
          "v=spf1 include:_netblocks.google.com include:_netblocks2.google.com include:_netblocks3.google.com ~all",
        ],
      },
      "_netblocks.google.com": { txt: ["v=spf1 ip4:35.190.247.0/24 ~all"] },
      "_netblocks2.google.com": { txt: ["v=spf1 ip6:2001:4860:4000::/36 ~all"] },
      "_netblocks3.google.com": { txt: ["v=spf1 ip4:172.217.0.0/19 ~all"] },
      "spf.postal.example.com": withAddresses({
        txt: ["v=spf1 a mx redirect=_tail.postal.example.com", "google-site-verification=x"],
        mx: ["mx.postal.example.com"],
      }),
      "mx.postal.example.com": withAddresses(),
      "_tail.postal.example.com": { txt: ["v=spf1 ip4:192.0.2.0/24 -all"] },
    });
    const count = await judge(
      "v=spf1 a include:_spf.google.com include:spf.postal.example.com ~all",
      resolver,
    );
    expect(count).toMatchObject({
      verdict: "ok",
      total: 9,
      limit: 10,
      lowerBound: false,
      unresolved: [],
      warnings: [],
    });
    expect(count.terms).toEqual([
      { term: "a", lookups: 1 },
      {
        term: "include:_spf.google.com",
        domain: "_spf.google.com",
        lookups: 4,
        children: ["", "2", "3"].map((n) => ({
          term: `include:_netblocks${n}.google.com`,
          domain: `_netblocks${n}.google.com`,
          lookups: 1,
          children: [],
        })),
      },
      {
        term: "include:spf.postal.example.com",
        domain: "spf.postal.example.com",
        lookups: 4,
        children: [
          { term: "a", lookups: 1 },
          { term: "mx", lookups: 1 },
          {
            term: "redirect=_tail.postal.example.com",
            domain: "_tail.postal.example.com",
            lookups: 1,
            children: [],
          },
        ],
      },
    ]);
    // Each name and type once, though both address families are evaluated.
    expect(new Set(asked).size).toBe(asked.length);
    expect(asked.filter((query) => query.startsWith("TXT"))).toHaveLength(6);
    expect(spfLookupProblem(count)).toBeUndefined();
    expect(spfUnresolvedWarning(count)).toBeUndefined();
  });

  it("counts a record included twice twice, and resolves it once", async () => {
    const { resolver, asked } = zoneResolver({
      "a.example.com": { txt: ["v=spf1 include:shared.example.com -all"] },
      "b.example.com": { txt: ["v=spf1 include:Shared.example.com -all"] },
      "shared.example.com": { txt: ["v=spf1 mx -all"], mx: ["mx.example.com"] },
      "mx.example.com": withAddresses(),
    });
    const count = await judge("v=spf1 include:a.example.com include:b.example.com ~all", resolver);
    expect(count).toMatchObject({ verdict: "ok", total: 6 });
    expect(asked.filter((query) => query === "TXT shared.example.com")).toHaveLength(1);
  });

  it("refuses a loop back to a record being evaluated (receivers follow it until the limit)", async () => {
    const { resolver } = zoneResolver({
      "example.com": { txt: ["v=spf1 include:a.example.com ~all"] },
      "a.example.com": { txt: ["v=spf1 include:b.example.com -all"] },
      "b.example.com": { txt: ["v=spf1 include:A.example.com include:example.com -all"] },
    });
    const count = await judge("v=spf1 include:a.example.com ~all", resolver);
    expect(count).toMatchObject({ verdict: "permerror", total: 3 });
    expect(count.error).toEqual({
      kind: "loop",
      term: "include:A.example.com",
      via: ["include:a.example.com", "include:b.example.com"],
      rule: expect.stringMatching(/leads back to A\.example\.com.*§4\.6\.4, §5\.2/),
    });
    expect(spfLookupProblem(count)).toBe(
      'receivers return permerror for this SPF record: "include:A.example.com" (reached through ' +
        "include:a.example.com → include:b.example.com) leads back to A.example.com, whose record is being " +
        "evaluated: receivers follow the loop until the 10-lookup limit, permerror (RFC 7208 §4.6.4, §5.2); " +
        "remove the include or redirect that leads back.",
    );
  });

  it.each([
    ["include:missing.example.com", {}, "include-none", /no SPF record \(no such name \(NXDOMAIN\)\).*§5\.2/],
    [
      "include:nospf.example.com",
      { "nospf.example.com": { txt: ["google-site-verification=abc", "v=spf10 -all"] } },
      "include-none",
      /no SPF record \(2 TXT records, none SPF\)/,
    ],
    [
      "include:twice.example.com",
      { "twice.example.com": { txt: ["v=spf1 -all", "V=SPF1 a -all"] } },
      "multiple-records",
      /2 SPF records.*§4\.5/,
    ],
    [
      "redirect=gone.example.com",
      {},
      "redirect-none",
      /a redirect to a domain without one is permerror \(RFC 7208 §6\.1\)/,
    ],
  ] as const)("%s: %s", async (term, zone, kind, rule) => {
    const { resolver } = zoneResolver(zone);
    const count = await judge(`v=spf1 ${term}${term.startsWith("redirect") ? "" : " -all"}`, resolver);
    expect(count.error).toEqual({ kind, term, via: [], rule: expect.stringMatching(rule) });
  });

  it("warns of what cannot be known: DNS failures (temperror), names that depend on the message, ptr", async () => {
    const { resolver, asked } = zoneResolver({
      "slow.example.com": dnsError("ETIMEOUT"),
      "broken.example.com": dnsError("ESERVFAIL"),
    });
    const count = await judge(
      "v=spf1 include:slow.example.com a:broken.example.com include:%{l}._spf.example.com ptr -all",
      resolver,
    );
    expect(count).toMatchObject({ verdict: "temperror", total: 4, lowerBound: true, error: undefined });
    expect(count.unresolved.map(({ term, temperror, mayBeVoid }) => [term, temperror, mayBeVoid])).toEqual([
      ["include:slow.example.com", true, false],
      ["a:broken.example.com", true, false],
      ["include:%{l}._spf.example.com", false, true],
      ["ptr", false, true],
    ]);
    expect(asked.some((query) => query.includes("%"))).toBe(false);
    expect(spfLookupProblem(count)).toBeUndefined();
    expect(spfUnresolvedWarning(count)).toBe(
      "Receivers would return temperror for now: include:slow.example.com: the DNS query timed out for " +
        "slow.example.com; a:broken.example.com: the DNS server answered SERVFAIL for broken.example.com; what " +
        "lies behind could not be checked, so run again once the DNS answers. Not checked, as it differs from " +
        "message to message: include:%{l}._spf.example.com: its domain depends on the message (%{l}); ptr: its " +
        "names are the client's reverse DNS, different for each message.",
    );
  });

  it("over the limit: stops looking up, and the problem names the total, the term, the limit and each term's cost", async () => {
    const zone = Object.fromEntries(
      [0, 1, 2, 3, 4, 5].map((i) => [
        `p${i}.example.com`,
        withAddresses({ txt: ["v=spf1 a mx -all"], mx: ["mx.example.com"] }),
      ]),
    );
    const { resolver, asked } = zoneResolver({ ...zone, "mx.example.com": withAddresses() });
    const text = `v=spf1 ${[0, 1, 2, 3, 4, 5].map((i) => `include:p${i}.example.com`).join(" ")} ~all`;
    const count = await judge(text, resolver);
    // p0..p3 cost 3 each: lookup 11 is p3's a; p3's mx, p4 and p5 are counted, not looked up.
    expect(count).toMatchObject({ verdict: "permerror", total: 14, lowerBound: true });
    expect(asked.filter((query) => query.startsWith("TXT"))).toEqual(
      ["p0", "p1", "p2", "p3"].map((name) => `TXT ${name}.example.com`),
    );
    expect(spfLookupProblem(count)).toBe(
      "SPF needs at least 14 DNS lookups, over the limit of 10 (RFC 7208 §4.6.4): receivers return permerror at a " +
        "(reached through include:p3.example.com), so no mail that reaches it passes SPF; remove includes, or " +
        "replace them with the ip4:/ip6: networks they list (lookups by term: include:p0.example.com 3, " +
        "include:p1.example.com 3, include:p2.example.com 3, include:p3.example.com 3, include:p4.example.com 1, " +
        "include:p5.example.com 1).",
    );
  });

  it("exactly 10 is within the limit; 11 is not", async () => {
    const { resolver } = zoneResolver({
      "example.com": withAddresses({ mx: ["mx.example.com"] }),
      "mx.example.com": withAddresses(),
    });
    const within = await judge(`v=spf1 ${"a ".repeat(10)}-all`, resolver);
    expect(within).toMatchObject({ verdict: "ok", total: 10 });
    const over = await judge(`v=spf1 ${"a ".repeat(9)}mx ptr -all`, resolver);
    expect(over).toMatchObject({
      verdict: "permerror",
      total: 11,
      error: { kind: "lookup-limit", term: "ptr" },
    });
  });

  it("counts void lookups by term, for each address family, and warns where pyspf counts answers", async () => {
    const { resolver } = zoneResolver({
      "example.com": { a: ["192.0.2.1"], mx: ["m1.example.com", "m2.example.com", "m3.example.com"] },
      "h.example.com": { a: ["192.0.2.2"] },
    });
    // IPv4: the three MX hosts have no address (one void term). IPv6: a, mx and a:h find nothing.
    const count = await judge("v=spf1 a mx a:h.example.com -all", resolver);
    expect(count).toMatchObject({
      verdict: "permerror",
      error: { kind: "void-limit", term: "a:h.example.com", family: "ipv6" },
    });
    expect(spfLookupProblem(count)).toMatch(
      /^receivers return permerror for this SPF record for mail from IPv6 addresses: "a:h\.example\.com" is the third lookup to find nothing \(after a, mx\).*§4\.6\.4\); publish the records/,
    );
    const ipv4Only = await judge("v=spf1 mx -all", resolver);
    expect(ipv4Only).toMatchObject({ verdict: "ok" });
    expect(spfUnresolvedWarning(ipv4Only)).toContain(
      "pyspf counts each empty answer as a void lookup (3 for IPv4 clients), where RFC 7208 §4.6.4 counts terms (1)",
    );
  });

  it("refuses an mx with more than 10 MX names (§4.6.4), and accepts 10", async () => {
    const hosts = (n: number) => Array.from({ length: n }, (_, i) => `m${i}.example.com`);
    const addressed = Object.fromEntries(hosts(11).map((host) => [host, withAddresses()]));
    const { resolver } = zoneResolver({
      ...addressed,
      "ten.example.com": { mx: hosts(10) },
      "eleven.example.com": { mx: hosts(11) },
    });
    expect(await judge("v=spf1 mx:ten.example.com -all", resolver)).toMatchObject({
      verdict: "ok",
      total: 1,
    });
    const eleven = await judge("v=spf1 mx:eleven.example.com -all", resolver);
    expect(eleven.error).toEqual({
      kind: "mx-limit",
      term: "mx:eleven.example.com",
      via: [],
      rule: "leads to 11 MX names at eleven.example.com: more than 10 is permerror (RFC 7208 §4.6.4)",
    });
  });

  it("refuses a record that is not SPF", async () => {
    await expect(judge("v=DMARC1; p=none", zoneResolver({}).resolver)).rejects.toThrow(/not an SPF record/);
  });
});

describe("countSpfLookups through DNS (the emulator's Cloudflare stand-in and DNS server)", () => {
  const emulator = useEmulator();

  it("resolves the published records with a node:dns Resolver", async () => {
    const txt = (name: string, content: string) => ({ purpose: "spf" as const, type: "TXT", name, content });
    await publishRecords(emulator(), [
      txt("example.com", "v=spf1 include:_spf.example.com include:twice.example.com mx ~all"),
      txt("example.com", "google-site-verification=abc"),
      txt("_spf.example.com", "v=spf1 ip4:192.0.2.0/24 include:_netblocks.example.com -all"),
      txt("_netblocks.example.com", "v=spf1 a ip6:2001:db8::/32 redirect=_tail.example.com"),
      txt("_tail.example.com", `v=spf1 exists:%{i}._spf.example.com ${"x".repeat(300)}=long -all`),
      txt("twice.example.com", "v=spf1 -all"),
      txt("twice.example.com", "v=spf1 a -all"),
    ]);
    const spfResolver = spfResolverAt(emulator().dns.address);

    const apex = await spfResolver.txt("example.com");
    expect(spfRecordCountProblem(apex, "example.com")).toBeUndefined();
    const record = apex.map((strings) => strings.join("")).find(isSpfRecord)!;

    const count = await countSpfLookups(record, spfResolver, { domain: "example.com" });
    // _spf 1, _netblocks 1, its a 1 (void), redirect 1, exists 1 (void for an unlisted client); twice: 2 records.
    expect(count).toMatchObject({ verdict: "permerror", total: 6 });
    expect(count.error).toMatchObject({ kind: "multiple-records", term: "include:twice.example.com" });
    expect(count.terms.map(({ term, lookups }) => [term, lookups])).toEqual([
      ["include:_spf.example.com", 5],
      ["include:twice.example.com", 1],
    ]);
    expect(spfRecordCountProblem(await spfResolver.txt("twice.example.com"), "twice.example.com")).toMatch(
      /^2 SPF records/,
    );
  });
});
