import { promises as dns } from "node:dns";
import * as cloudflareSdk from "@pulumi/cloudflare";
import { Domain, DomainArgs } from "../../provider";
import { quoteTxt } from "../../provider/dns";
import { useEmulator } from "../support/emulator";
import { messages, zoneEditor } from "../support/zone-harness";
import { destroyRun, runProgram, RunOptions, unchangedFrom } from "../../testing";

/**
 * Found by a review of the zone reads and DNS ownership: programs under the test kit's
 * live mocks against the emulator. Each test failed on the code as reviewed and states the
 * expected behaviour.
 */

const emulator = useEmulator();
const { cloudflare, userRecord } = zoneEditor(emulator);
let zoneId: string;
let counter = 0;
const freshName = () => `zrev${++counter}-${process.pid}.example.com`;

beforeAll(() => {
  zoneId = emulator().cloudflare.zones[0].id;
  dns.setServers([emulator().dns.address]);
});

const live = (extra: Partial<RunOptions> = {}): RunOptions => ({
  mode: "live",
  emulator: emulator(),
  timeoutMs: 60_000,
  ...extra,
});
const preview = (extra: Partial<RunOptions> = {}): RunOptions => ({
  mode: "preview",
  emulator: emulator(),
  timeoutMs: 10_000,
  ...extra,
});
const domainCreates = () => emulator().requests.count("domains/create");

function domain(resource: string, name: string, args: Partial<DomainArgs> = {}) {
  return new Domain(resource, {
    name,
    ...args,
    cloudflare: { zoneId, ...args.cloudflare },
    verification: { timeoutSeconds: 30, pollIntervalSeconds: 1 },
  });
}

/** An SPF record at `name` that already needs the 10 DNS lookups receivers allow. */
async function spfAtTheLimit(name: string): Promise<void> {
  for (let i = 0; i < 10; i++)
    await userRecord({ name: `spf${i}.${name}`, type: "TXT", content: quoteTxt("v=spf1 -all") });
  const includes = Array.from({ length: 10 }, (_, i) => `include:spf${i}.${name}`).join(" ");
  await userRecord({ name, type: "TXT", content: quoteTxt(`v=spf1 ${includes} -all`) });
}

describe("publishedBefore: records of another of the stack's Domains under the new domain", () => {
  it("a new apex Domain merging into an SPF record at 10 lookups fails the preview even though the stack already publishes a subdomain of it, and `up` creates nothing on the service", async () => {
    const apex = freshName();
    const sub = `news.${apex}`;
    // The stack already sends from a subdomain: its records (marked) sit under the apex.
    const first = await runProgram(() => {
      domain("news", sub);
      return {};
    }, live());
    expect(messages(first)).toBe("");

    await spfAtTheLimit(apex);
    // Then the apex is added, as docs/existing-records.md recommends for an apex that already has an SPF record.
    const program = () => {
      domain("news", sub);
      domain("apex", apex, { mx: false, cloudflare: { zoneId, existingRecords: { spf: "merge" } } });
      return {};
    };
    const next = { hooks: { newResource: unchangedFrom(first) } };
    const refusal = "it already needs 10 DNS lookups, and the service's include makes 11";
    const previewed = await runProgram(program, preview(next));
    // Expected: the apex was never published by this stack, so the preview fails (as for any new domain).
    expect(messages(previewed)).toContain(refusal);

    const before = domainCreates();
    const up = await runProgram(program, live(next));
    // Expected: `up` stops at the zone check before the domain is made on the service.
    expect(domainCreates()).toBe(before);
    await destroyRun(up, live());
    await destroyRun(first, live());
  });
});

describe("a Cloudflare provider given through the Domain's `providers` (or a parent's), with a claimed policy", () => {
  it("fails the preview as `cloudflare.provider` does (claimed records cannot use it), so `up` creates nothing on the service", async () => {
    const name = freshName();
    await userRecord({ name, type: "TXT", content: quoteTxt("v=spf1 include:_spf.google.com ~all") });
    // The stack's Cloudflare token lives in its own provider (a scoped token): no default one.
    const program = () => {
      const scoped = new cloudflareSdk.Provider("scoped", { apiToken: emulator().cloudflare.apiToken });
      new Domain(
        "mail",
        {
          name,
          cloudflare: { zoneId, existingRecords: { spf: "overwrite" } },
          verification: { timeoutSeconds: 30, pollIntervalSeconds: 1 },
        },
        { providers: [scoped] },
      );
      return {};
    };
    const noDefaultToken = { config: { "cloudflare:apiToken": undefined } };
    const previewed = await runProgram(program, preview(noDefaultToken));
    // Expected: the same refusal as for `cloudflare: { provider }`.
    expect(messages(previewed)).toContain("cannot be carried out with cloudflare.provider");

    const before = domainCreates();
    const up = await runProgram(program, live(noDefaultToken));
    expect(domainCreates()).toBe(before);
    await destroyRun(up, live());
  });
});

describe("a claimed policy on a stack whose default Cloudflare provider has no API token", () => {
  it("(an API key and email, which @pulumi/cloudflare accepts) fails the preview, so `up` creates nothing on the service", async () => {
    const name = freshName();
    await userRecord({ name, type: "TXT", content: quoteTxt("v=spf1 include:_spf.google.com ~all") });
    const program = () => {
      domain("mail", name, { cloudflare: { zoneId, existingRecords: { spf: "merge" } } });
      return {};
    };
    const legacyAuth = {
      config: {
        "cloudflare:apiToken": undefined,
        "cloudflare:apiKey": "0123456789abcdef0123456789abcdef01234",
        "cloudflare:email": "ops@example.com",
      },
    };
    const previewed = await runProgram(program, preview(legacyAuth));
    // Expected: the preview already says what `up` will stop at (the claimed records need a token).
    expect(messages(previewed)).toContain("need a Cloudflare API token");

    const before = domainCreates();
    const up = await runProgram(program, live(legacyAuth));
    expect(domainCreates()).toBe(before);
    await destroyRun(up, live());
  });
});

describe("a zone read that fails (Cloudflare answers 503 until the provider gives up)", () => {
  const failingRead = async () => {
    emulator().faults.set([{ endpoints: "cloudflare:dns_records.list", rate503: 1 }]);
    try {
      return await runProgram(
        () => {
          domain("mail", freshName(), { dmarc: { policy: "none" } });
          return {};
        },
        preview({ timeoutMs: 30_000 }),
      );
    } finally {
      emulator().faults.set([]);
    }
  };

  it("reaches the program with Cloudflare's reason under the test kit (Pulumi's invoke keeps only `err.details`)", async () => {
    const run = await failingRead();
    // Now: "Domain mail: the read of zone … failed: Error" and an empty message.
    for (const error of run.errors) expect(error.message).toContain("503");
  });

  it("names the Domain and the zone in every error (the preflight's publishedBefore read is not wrapped)", async () => {
    const run = await failingRead();
    expect(run.errors.length).toBeGreaterThan(0);
    for (const error of run.errors) expect(error.message).toMatch(/Domain mail: the read of zone \w+ at /);
  });
});

describe("an adopted DMARC record the user edits by hand afterwards", () => {
  it("is drift the next `up` writes back (as for any claimed record), not a preview refusal on every run", async () => {
    const name = freshName();
    const dmarc = "v=DMARC1; p=none";
    const theirs = await userRecord({ name: `_dmarc.${name}`, type: "TXT", content: quoteTxt(dmarc) });
    const program = () => {
      domain("mail", name, {
        dmarc: { policy: "none" },
        cloudflare: { zoneId, existingRecords: { dmarc: "adopt" } },
      });
      return {};
    };
    const up = await runProgram(program, live());
    expect(messages(up)).toBe("");
    expect(up.get("email-delivery:ClaimedDnsRecord", "mail-dmarc").id).toBe(theirs.id);

    // Someone tightens the policy by hand in the dashboard.
    await cloudflare("PUT", `/${String(theirs.id)}`, {
      name: `_dmarc.${name}`,
      type: "TXT",
      content: quoteTxt("v=DMARC1; p=reject"),
      ttl: 3600,
    });
    const next = await runProgram(program, preview({ hooks: { newResource: unchangedFrom(up) } }));
    // Now: "the DMARC record at _dmarc.… already exists and is not the one to publish … `adopt` takes
    // over only an identical record" — about the record the stack already holds.
    expect(messages(next)).toBe("");
    await destroyRun(up, live());
  });
});

describe("a renamed stack (emailDelivery:formerStackNames) that then gives a record a policy", () => {
  it("the claimed record takes the stack's own record under its former name for its own, as the preview does (refused as an own record in the way), instead of overwriting it as a stranger's", async () => {
    const name = freshName();
    const at = `_dmarc.${name}`;
    const first = await runProgram(
      () => {
        domain("mail", name, { dmarc: { policy: "none" } });
        return {};
      },
      live({ stack: "staging" }),
    );
    expect(messages(first)).toBe("");
    const [own] = (await cloudflare("GET", `?name.exact=${encodeURIComponent(at)}`)) as unknown as Record<
      string,
      unknown
    >[];
    expect(own.comment).toMatch(/^pulumi email-delivery\/staging:/);

    // `pulumi stack rename staging stage`, the former name in config, and a policy for DMARC.
    const renamed = await runProgram(
      () => {
        domain("mail", name, {
          dmarc: { policy: "none" },
          cloudflare: { zoneId, existingRecords: { dmarc: "overwrite" } },
        });
        return {};
      },
      live({
        stack: "stage",
        config: { "emailDelivery:formerStackNames": JSON.stringify(["staging"]) },
        hooks: { newResource: unchangedFrom(first) },
      }),
    );
    const claimed = renamed.get("email-delivery:ClaimedDnsRecord", "mail-dmarc");
    // The record was a `ClaimedDnsRecord` under "fail" already: a new policy changes nothing of the
    // record the stack holds (it is the stack's, made by it), so nothing is taken over as a stranger's.
    expect(claimed.state?.ownership).toBe("created");
    expect(messages(renamed)).toBe("");
    await destroyRun(renamed, live({ stack: "stage" }));
    await destroyRun(first, live({ stack: "staging" }));
  });
});

describe('a record the stack published under the default policy ("fail"), which the user has since taken for their own', () => {
  // A "fail" record is a `ClaimedDnsRecord` now (it was a `cloudflare.DnsRecord`, which destroy
  // deleted by id whatever it had become): destroy gives it up once the user has taken it back.
  it("is left as the user made it by destroy, as every record the stack holds", async () => {
    const name = freshName();
    const up = await runProgram(() => {
      domain("mail", name);
      return {};
    }, live());
    expect(messages(up)).toBe("");
    const returnPath = up.get("pulumi-nodejs:dynamic/email-delivery:ClaimedDnsRecord", "mail-return-path");
    // The user reuses the record for a web server of theirs: another name, another type, their comment.
    const www = `www.${name}`;
    await cloudflare("PUT", `/${returnPath.id}`, {
      name: www,
      type: "A",
      content: "192.0.2.80",
      ttl: 300,
      proxied: false,
      comment: "web server",
    });
    await destroyRun(up, live());
    expect(await cloudflare("GET", `?name.exact=${encodeURIComponent(www)}`)).toEqual([
      expect.objectContaining({ id: returnPath.id, type: "A", comment: "web server" }),
    ]);
  });
});
