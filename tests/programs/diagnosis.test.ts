import { Emulator } from "../../emulator";
import { Domain, DomainArgs } from "../../provider";
import { quoteTxt } from "../../provider/dns";
import { useEmulator } from "../support/emulator";
import { ProgramRun, Registration, runProgram } from "../../testing";

/**
 * Issue 26's evidence: one program per diagnosis case, run live through the kit against the
 * emulator's Cloudflare and DNS, each failing its verification in 1 s. What reaches Cloudflare (a
 * hook), what the zone already holds (seeding) or what a nameserver serves (`hold()`) makes the
 * case; the test asserts the case's title, the expected record's name and what DNS served, as the
 * failure's section "What DNS serves, check by check:" says them.
 */

const VERIFICATION = "email-delivery:DomainVerification";
const SECTION = "What DNS serves, check by check:";

let counter = 0;
const freshName = () => `diag${++counter}.example.com`;

function program(
  emulator: Emulator,
  name: string,
  cloudflare: Partial<NonNullable<DomainArgs["cloudflare"]>> = {},
) {
  const zoneId = emulator.cloudflare.zones[0].id;
  return () => {
    const domain = new Domain("primary", {
      name,
      cloudflare: { zoneId, ...cloudflare },
      verification: { timeoutSeconds: 1, pollIntervalSeconds: 1 },
    });
    return { verified: domain.verified };
  };
}

type Hook = (body: Record<string, unknown>, registration: Registration) => Record<string, unknown>;

async function run(
  emulator: Emulator,
  name: string,
  options: {
    hook?: Hook;
    config?: Record<string, string>;
    cloudflare?: Partial<NonNullable<DomainArgs["cloudflare"]>>;
  } = {},
): Promise<ProgramRun<string>> {
  return runProgram(program(emulator, name, options.cloudflare), {
    mode: "live",
    emulator,
    ...(options.config && { config: options.config }),
    ...(options.hook && { hooks: { cloudflareRecord: options.hook as never } }),
  });
}

/** The failure's diagnosis section, checked to fit 80 columns. */
function section(result: ProgramRun<string>): string {
  const verification = result.get(VERIFICATION, "primary-verification");
  expect(verification.status).toBe("failed");
  const message = verification.error!;
  const start = message.indexOf(SECTION);
  expect(start).toBeGreaterThanOrEqual(0);
  // The section ends where the message's closing advice ("Fix the records named above …") begins.
  const end = message.indexOf("\nFix the records", start);
  const text = message.slice(start, end < 0 ? undefined : end);
  for (const line of text.split("\n")) expect([...line].length).toBeLessThanOrEqual(80);
  return text;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("diagnosis cases, one nameserver", () => {
  const emulator = useEmulator();

  it("not published: the DKIM record reaches the zone under another name", async () => {
    const name = freshName();
    const result = await run(emulator(), name, {
      hook: (body, registration) =>
        registration.name === "primary-dkim" ? { ...body, name: `other-${String(body.name)}` } : body,
    });
    const text = section(result);
    expect(text).toMatch(/DKIM: not published/);
    expect(text).toMatch(new RegExp(`expected\\s+TXT \\S*\\._domainkey\\.${escape(name)}`));
    expect(text).toMatch(/zone\s+nothing at this name/);
    expect(text).toMatch(/dns\s+\S+: /);
  }, 60_000);

  it("published but proxied: the return-path CNAME sent with proxied: true", async () => {
    const name = freshName();
    const result = await run(emulator(), name, {
      hook: (body, registration) =>
        registration.name === "primary-return-path" ? { ...body, proxied: true } : body,
    });
    const text = section(result);
    expect(text).toMatch(/Return path: published but proxied/);
    expect(text).toMatch(new RegExp(`expected\\s+CNAME \\S+\\.${escape(name)}`));
    expect(text).toMatch(/zone\s+CNAME .*\(proxied\)/);
  }, 60_000);

  it("another SPF record beside ours: two v=spf1 TXT records at the apex", async () => {
    const name = freshName();
    const zoneId = emulator().cloudflare.zones[0].id;
    let seeded = false;
    const result = await run(emulator(), name, {
      // The other record is seeded as ours reaches Cloudflare, so the component's existing-records
      // check (made before) does not refuse it; the zone then holds both. Ours loses the service's
      // include on the way: Postal's check passes when any SPF record has it, so without this the
      // service reports OK and nothing is diagnosed.
      hook: (body, registration) => {
        if (registration.name !== "primary-spf") return body;
        if (!seeded) {
          seeded = true;
          void emulator().cloudflare.addRecord(zoneId, {
            name,
            type: "TXT",
            content: quoteTxt("v=spf1 include:_spf.google.com ~all"),
            ttl: 3600,
          });
        }
        return { ...body, content: quoteTxt("v=spf1 a mx ~all") };
      },
    });
    const text = section(result);
    expect(text).toMatch(/SPF: another SPF record beside ours/);
    expect(text).toMatch(new RegExp(`expected\\s+TXT ${escape(name)}`));
    expect(text).toContain("include:_spf.google.com");
    expect(text).toMatch(/has 2 SPF records/);
  }, 60_000);

  it("another value: the return-path CNAME points at another target", async () => {
    const name = freshName();
    const result = await run(emulator(), name, {
      hook: (body, registration) =>
        registration.name === "primary-return-path" ? { ...body, content: "rp.elsewhere.example.net" } : body,
    });
    const text = section(result);
    expect(text).toMatch(/Return path: exists with another value/);
    expect(text).toMatch(new RegExp(`expected\\s+CNAME \\S+\\.${escape(name)}`));
    expect(text).toMatch(/dns\s+\S+: .*rp\.elsewhere\.example\.net/);
  }, 60_000);

  it("published at the wrong name: the zone's name appended twice", async () => {
    const name = freshName();
    const zone = emulator().cloudflare.zones[0].name;
    const result = await run(emulator(), name, {
      hook: (body, registration) =>
        registration.name === "primary-return-path"
          ? { ...body, name: `${String(body.name)}.${zone}` }
          : body,
    });
    const text = section(result);
    expect(text).toMatch(/Return path: published at the wrong name/);
    expect(text).toMatch(new RegExp(`expected\\s+CNAME \\S+\\.${escape(name)}`));
    expect(text).toContain(`.${name}.${zone}`);
  }, 60_000);
});

describe("diagnosis cases, two nameservers", () => {
  const emulator = useEmulator({ nameservers: 2 });

  it("still propagating: nameserver 0 held, nameserver 1 serves the records", async () => {
    const name = freshName();
    const [first, second] = emulator().dns.nameservers;
    first.hold();
    let result: ProgramRun<string>;
    try {
      result = await run(emulator(), name);
    } finally {
      first.release();
    }
    const text = section(result);
    expect(text).toMatch(/: still propagating/);
    expect(text).toMatch(/1 of 2/);
    expect(text).toContain(first.address);
    expect(text).toContain(second.address);
  }, 60_000);

  it("the service disagrees with DNS: the provider asks only nameserver 1, which serves the records", async () => {
    const name = freshName();
    const [first, second] = emulator().dns.nameservers;
    first.hold();
    let result: ProgramRun<string>;
    try {
      // Split horizon: whatever the provider asks (nameservers and resolver) is nameserver 1.
      result = await run(emulator(), name, {
        config: {
          "emailDelivery:dnsNameservers": second.address,
          "emailDelivery:dnsResolver": second.address,
        },
      });
    } finally {
      first.release();
    }
    const text = section(result);
    expect(text).toMatch(/: the service's check disagrees with DNS/);
    expect(text).toContain(second.address);
  }, 60_000);

  it("SPF over 10 lookups: the merged record's includes gained lookups after the merge", async () => {
    // Postal's SPF check only looks for its include, so a record over the limit passes it: the
    // service's check fails here because it asks nameserver 0, held before the records were made,
    // while the provider asks nameserver 1, which serves the merged record and its includes. The
    // merge refuses a record over the limit, so the includes gain their lookups after it: once the
    // claimed SPF record is written, when the verification is registered (it depends on it).
    // Five includes of two "a:" terms each (names that have an address: no void lookups), with the
    // service's "a mx include:", make 5 + 10 + 3 and more.
    const name = freshName();
    const zoneId = emulator().cloudflare.zones[0].id;
    const [first, second] = emulator().dns.nameservers;
    const includes = Array.from({ length: 5 }, (_, i) => `s${i}.${name}`);
    await emulator().cloudflare.addRecord(zoneId, {
      name,
      type: "TXT",
      content: quoteTxt(`v=spf1 ${includes.map((include) => `include:${include}`).join(" ")} ~all`),
      ttl: 3600,
    });
    for (const include of includes)
      await emulator().cloudflare.addRecord(zoneId, {
        name: include,
        type: "TXT",
        content: quoteTxt("v=spf1 ~all"),
        ttl: 3600,
      });
    const gainLookups = async () => {
      for (const record of emulator().cloudflare.records(zoneId, { type: "TXT" }))
        if (includes.includes(record.name)) {
          await emulator().cloudflare.removeRecord(zoneId, record.id);
          await emulator().cloudflare.addRecord(zoneId, {
            name: record.name,
            type: "TXT",
            content: quoteTxt(`v=spf1 a:host.${name} a:host.${name} ~all`),
            ttl: 3600,
          });
        }
    };
    await emulator().cloudflare.addRecord(zoneId, {
      name: `host.${name}`,
      type: "A",
      content: "192.0.2.10",
      ttl: 3600,
    });
    first.hold();
    let result: ProgramRun<string>;
    try {
      result = await runProgram(program(emulator(), name, { existingRecords: { spf: "merge" } }), {
        mode: "live",
        emulator: emulator(),
        config: {
          "emailDelivery:dnsNameservers": second.address,
          "emailDelivery:dnsResolver": second.address,
        },
        hooks: {
          newResource: async (args) => {
            if (args.name === "primary-verification") await gainLookups();
            return undefined;
          },
        },
      });
    } finally {
      first.release();
    }
    const text = section(result);
    expect(text).toMatch(/SPF: SPF over its lookup limits/);
    expect(text).toMatch(new RegExp(`expected\\s+TXT ${escape(name)}`));
    const needs = /the SPF record needs (\d+) DNS lookups, over the limit of 10/.exec(text);
    expect(Number(needs?.[1])).toBeGreaterThan(10);
    expect(text).toContain(second.address);
  }, 60_000);

  it("a passing program's run has no diagnosis text anywhere", async () => {
    const name = freshName();
    const result = await run(emulator(), name);
    expect(result.get(VERIFICATION, "primary-verification").status).not.toBe("failed");
    const everything = JSON.stringify([result.errors, result.providerLogs, result.outputs]);
    expect(everything).not.toContain(SECTION);
    for (const title of ["not published", "proxied", "another value", "still propagating", "disagrees"])
      expect(everything).not.toContain(title);
  }, 60_000);
});
