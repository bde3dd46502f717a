import { promises as dns } from "node:dns";
import * as cloudflareSdk from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import { Domain, DomainArgs } from "../../provider";
import { quoteTxt, unquoteTxt } from "../../provider/dns";
import { clientFor, useEmulator } from "../support/emulator";
import { publishAddresses, publishGoogleSpf, ZONES_WITH_GOOGLE } from "../support/service-spf";
import { destroyRun, ProgramRun, runProgram, RunOptions, unchangedFrom } from "../../testing";

/**
 * Adversarial review of the `Domain` component's DNS ownership, as programs a user runs again and
 * again: an `up`, then the next preview or `up` of the same stack, under the live mocks against
 * the emulator (see tests/programs/existing-records.test.ts for the harness).
 */

const emulator = useEmulator({ zones: ZONES_WITH_GOOGLE });
let zoneId: string;
let counter = 0;
const freshName = () => `hprog${++counter}-${process.pid}.example.com`;

beforeAll(async () => {
  zoneId = emulator().cloudflare.zones[0].id;
  dns.setServers([emulator().dns.address]);
  await publishGoogleSpf(emulator());
});

const txtAt = (name: string) =>
  emulator()
    .cloudflare.records(zoneId, { name, type: "TXT" })
    .map((r) => unquoteTxt(r.content));

function domainProgram(name: string, args: Partial<DomainArgs> = {}) {
  return () => {
    const domain = new Domain("mail", {
      name,
      ...args,
      cloudflare: { zoneId, ...args.cloudflare },
      verification: { timeoutSeconds: 30, pollIntervalSeconds: 1 },
    });
    return { verified: domain.verified };
  };
}
const live = (): RunOptions => ({ mode: "live", emulator: emulator(), timeoutMs: 60_000 });
const preview = (): RunOptions => ({ mode: "preview", emulator: emulator(), timeoutMs: 10_000 });
const messages = (run: ProgramRun<string>) => run.errors.map((error) => error.message).join("\n");

describe("the next preview of a stack that merged its include", () => {
  it("does not count the service's include twice (a merged record at exactly 10 lookups)", async () => {
    const name = freshName();
    // Nine lookups of the user's own, and the service's include makes ten: allowed.
    const mine = `v=spf1 ${Array.from({ length: 9 }, (_, i) => `a:h${i}.${name}`).join(" ")} ~all`;
    // Each with an address: three lookups that find nothing would be a permerror (RFC 7208 §4.6.4).
    for (let i = 0; i < 9; i++) await publishAddresses(emulator(), `h${i}.${name}`);
    await emulator().cloudflare.addRecord(zoneId, { name, type: "TXT", content: quoteTxt(mine), ttl: 3600 });
    const program = domainProgram(name, { cloudflare: { zoneId, existingRecords: { spf: "merge" } } });

    const up = await runProgram(program, live());
    expect(up.errors).toEqual([]);
    expect(await txtAt(name)).toEqual([mine.replace(" ~all", " include:spf.postal.example.com ~all")]);

    // Nothing changed: the next preview of the same stack (its resources as the update left them) must pass.
    const again = await runProgram(program, { ...preview(), hooks: { newResource: unchangedFrom(up) } });
    expect(messages(again)).toBe("");
  });
});

describe("a project whose ownership mark is just 99 or 100 characters long", () => {
  it.each([87, 88])(
    "finds its own records on the next preview (project name of %i characters)",
    async (length) => {
      const name = freshName();
      // `pulumi <project>/test`: 12 characters besides the project's name.
      const project = "p".repeat(length);
      const up = await runProgram(domainProgram(name), { ...live(), project });
      expect(up.errors).toEqual([]);
      const again = await runProgram(domainProgram(name), { ...preview(), project });
      expect(messages(again)).toBe("");
    },
  );
});

describe("preview honesty", () => {
  it("a zone id unknown at preview (another resource's output) with claimed records: no error", async () => {
    const program = () => {
      const domain = new Domain("mail", {
        name: freshName(),
        cloudflare: {
          zoneId: pulumi.output(pulumi.unknown as unknown as string),
          existingRecords: { spf: "merge", returnPath: "overwrite", dkim: "adopt" },
        },
      });
      return { verified: domain.verified };
    };
    const run = await runProgram(program, preview());
    expect(messages(run)).toBe("");
    expect(
      run
        .ofType("email-delivery:ClaimedDnsRecord")
        .map((r) => r.name)
        .sort(),
    ).toEqual(["mail-dkim", "mail-return-path", "mail-spf"]);
  });
});

describe("adopt: true, an existing domain whose records the user published by hand", () => {
  it("publishes nothing, so the records in the zone do not fail the preview", async () => {
    const name = freshName();
    // The user set the domain up by hand, records and all; the stack now adopts it.
    const { domain } = await clientFor(emulator()).createDomain(name);
    expect(domain.name).toBe(name);
    await emulator().cloudflare.addRecord(zoneId, {
      name,
      type: "TXT",
      content: quoteTxt("v=spf1 a mx include:spf.postal.example.com ~all"),
      ttl: 3600,
    });
    await emulator().cloudflare.addRecord(zoneId, {
      name: `psrp.${name}`,
      type: "CNAME",
      content: "rp.postal.example.com",
      ttl: 3600,
    });
    const run = await runProgram(() => {
      const adopted = new Domain("mail", {
        name,
        adopt: true,
        cloudflare: { zoneId },
        verification: false,
      });
      return { domainId: adopted.domainId };
    }, preview());
    expect(messages(run)).toBe("");
  });
});

describe("adopt: true of a domain the service does not have yet", () => {
  it("still refuses, once the service has answered, to publish beside a record in the way", async () => {
    const name = freshName();
    const mine = "v=spf1 include:_spf.google.com ~all";
    await emulator().cloudflare.addRecord(zoneId, { name, type: "TXT", content: quoteTxt(mine), ttl: 3600 });
    const run = await runProgram(() => {
      const domain = new Domain("mail", { name, adopt: true, cloudflare: { zoneId }, verification: false });
      return { domainId: domain.domainId };
    }, live());
    expect(messages(run)).toContain(
      `the zone already has an SPF record at ${name} that this stack did not make`,
    );
    expect(await txtAt(name)).toEqual([mine]);
  });
});

describe("the Cloudflare token", () => {
  it("is in no input, output, state, log line or error of a run that claims records", async () => {
    const name = freshName();
    await emulator().cloudflare.addRecord(zoneId, {
      name,
      type: "TXT",
      content: quoteTxt("v=spf1 include:_spf.google.com ~all"),
      ttl: 3600,
    });
    await emulator().cloudflare.addRecord(zoneId, {
      name: `psrp.${name}`,
      type: "CNAME",
      content: "bounces.elsewhere.example.net",
      ttl: 3600,
    });
    const token = emulator().cloudflare.apiToken;
    const run = await runProgram(
      domainProgram(name, {
        cloudflare: { zoneId, existingRecords: { spf: "merge", returnPath: "overwrite", dkim: "adopt" } },
      }),
      live(),
    );
    expect(run.errors).toEqual([]);
    const everything = JSON.stringify({
      registrations: run.registrations,
      outputs: run.outputs,
      logs: [...run.providerLogs, ...run.programLogs],
    });
    expect(everything).toContain("ClaimedDnsRecord");
    for (let at = 0; at + 8 <= token.length; at++) expect(everything).not.toContain(token.slice(at, at + 8));
  });
});

describe("cloudflare.provider with a policy this package carries out itself", () => {
  it("fails the preview, naming the policy, before anything is registered under the domain", async () => {
    const run = await runProgram(() => {
      const provider = new cloudflareSdk.Provider("scoped", {
        apiToken: "scoped-token-0000000000000000000000000001",
      });
      const domain = new Domain("mail", {
        name: freshName(),
        cloudflare: { zoneId, provider, existingRecords: { mx: "add" } },
      });
      return { verified: domain.verified };
    }, preview());
    expect(messages(run)).toContain(
      "cloudflare.existingRecords.mx cannot be carried out with cloudflare.provider",
    );
    expect(run.ofType("email-delivery:Domain")).toEqual([]);
  });
});

describe("two Domains in one program and one zone", () => {
  it("a.<zone> and b.a.<zone>, each merging and adding beside the user's records: all verified, all given back", async () => {
    const outer = freshName();
    const inner = `b.${outer}`;
    const spf = "v=spf1 include:_spf.google.com ~all";
    for (const name of [outer, inner]) {
      await emulator().cloudflare.addRecord(zoneId, { name, type: "TXT", content: quoteTxt(spf), ttl: 3600 });
      await emulator().cloudflare.addRecord(zoneId, {
        name,
        type: "MX",
        content: "aspmx.l.google.com",
        priority: 1,
        ttl: 3600,
      });
    }
    const options = live();
    const run = await runProgram(() => {
      const existingRecords = { spf: "merge", mx: "add" } as const;
      const a = new Domain("a", {
        name: outer,
        cloudflare: { zoneId, existingRecords },
        verification: { timeoutSeconds: 30, pollIntervalSeconds: 1 },
      });
      const b = new Domain("b", {
        name: inner,
        cloudflare: { zoneId, existingRecords },
        verification: { timeoutSeconds: 30, pollIntervalSeconds: 1 },
      });
      return { a: a.verified, b: b.verified };
    }, options);
    expect(run.errors).toEqual([]);
    expect(run.outputs).toEqual({ a: true, b: true });
    const destroyed = await destroyRun(run, options);
    expect(destroyed.errors).toEqual([]);
    for (const name of [outer, inner]) {
      const left = emulator().cloudflare.records(zoneId, { name });
      expect(left.map((r) => `${r.type} ${r.content}`).sort()).toEqual([
        "MX aspmx.l.google.com",
        `TXT ${quoteTxt(spf)}`,
      ]);
    }
  });
});

describe("an SPF record spelled V=SPF1 (valid SPF: the version is case-insensitive)", () => {
  it("merged, it passes the service's check (Postal looks for a lowercase v=spf1)", async () => {
    const name = freshName();
    await emulator().cloudflare.addRecord(zoneId, {
      name,
      type: "TXT",
      content: quoteTxt("V=SPF1 include:_spf.google.com ~all"),
      ttl: 3600,
    });
    const options = live();
    const run = await runProgram(() => {
      const domain = new Domain("mail", {
        name,
        cloudflare: { zoneId, existingRecords: { spf: "merge" } },
        verification: { timeoutSeconds: 8, pollIntervalSeconds: 1 },
      });
      return { spfStatus: domain.spfStatus };
    }, options);
    expect(messages(run)).toBe("");
    expect(run.outputs).toEqual({ spfStatus: "OK" });
    // Destroy gives the record back as the user spelled it.
    expect((await destroyRun(run, options)).errors).toEqual([]);
    expect(await txtAt(name)).toEqual(["V=SPF1 include:_spf.google.com ~all"]);
  });
});
