import { promises as dns } from "node:dns";
import type { DomainArgs } from "../../provider";
import { quoteTxt, unquoteTxt } from "../../provider/dns";
import { useEmulator } from "../support/emulator";
import { publishGoogleSpf, ZONES_WITH_GOOGLE } from "../support/service-spf";
import { domainProgram, messages, zoneEditor } from "../support/zone-harness";
import { destroyRun, runProgram, RunOptions, unchangedFrom } from "../../testing";

/**
 * What a real engine brings to a stack's DNS ownership and nothing else covers: a stack renamed
 * with `pulumi stack rename` (its mark in record comments changes with it), a policy switched back
 * to "fail" on a stack that claimed records, and two stacks of one name in different
 * organizations or backends (the mark carries no organization). Each as a user runs it: an `up`,
 * then the next command on the same stack, its resources answered as the engine answers them.
 */

const emulator = useEmulator({ zones: ZONES_WITH_GOOGLE });
const { recordsAt } = zoneEditor(emulator);
let zoneId: string;
let counter = 0;
const freshName = () => `flow${++counter}-${process.pid}.example.com`;

beforeAll(async () => {
  zoneId = emulator().cloudflare.zones[0].id;
  dns.setServers([emulator().dns.address]);
  await publishGoogleSpf(emulator());
});

const mailProgram = (name: string, args: Partial<DomainArgs> = {}) => domainProgram(() => zoneId, name, args);
const run = (mode: RunOptions["mode"], stack: string, extra: Partial<RunOptions> = {}): RunOptions => ({
  mode,
  emulator: emulator(),
  stack,
  timeoutMs: mode === "live" ? 60_000 : 10_000,
  ...extra,
});

describe("pulumi stack rename", () => {
  it("the renamed stack's own records are another stack's until it names its former name in emailDelivery:formerStackNames", async () => {
    const name = freshName();
    const program = mailProgram(name);
    const up = await runProgram(program, run("live", "staging"));
    expect(messages(up)).toBe("");

    // Renamed to `stage`: the records still carry `pulumi email-delivery/staging`.
    const next = { hooks: { newResource: unchangedFrom(up) } };
    const refused = await runProgram(program, run("preview", "stage", next));
    expect(messages(refused)).toContain("made by stack email-delivery/staging");

    const former = { "emailDelivery:formerStackNames": JSON.stringify(["staging"]) };
    const renamed = await runProgram(program, run("preview", "stage", { ...next, config: former }));
    expect(messages(renamed)).toBe("");
    // A preview writes nothing: the records keep the old mark until the next update rewrites each
    // record's comment (one Cloudflare request per record).
    const comments = recordsAt(name).map((record) => record.comment);
    expect(comments).toEqual(
      expect.arrayContaining([expect.stringMatching(/^pulumi email-delivery\/staging:/)]),
    );
    await destroyRun(up, run("live", "staging"));
  });

  it("a former name that is no stack name fails the preview, naming the setting", async () => {
    const result = await runProgram(
      mailProgram(freshName()),
      run("preview", "stage", {
        config: { "emailDelivery:formerStackNames": JSON.stringify(["acme/staging"]) },
      }),
    );
    expect(messages(result)).toContain(
      'stack config emailDelivery:formerStackNames holds "acme/staging": give the stack\'s name alone ("staging")',
    );
  });
});

describe('a policy switched back to "fail" on a stack that claimed records', () => {
  it("merge, then fail: the preview refuses the user's record (it holds the service's include), and changes nothing", async () => {
    const name = freshName();
    await emulator().cloudflare.addRecord(zoneId, {
      name,
      type: "TXT",
      content: quoteTxt("v=spf1 include:_spf.google.com ~all"),
      ttl: 3600,
    });
    const up = await runProgram(
      mailProgram(name, { cloudflare: { zoneId, existingRecords: { spf: "merge" } } }),
      run("live", "test"),
    );
    expect(messages(up)).toBe("");
    const merged = recordsAt(name).find((record) => record.type === "TXT")!;

    const failing = await runProgram(
      mailProgram(name),
      run("preview", "test", { hooks: { newResource: unchangedFrom(up) } }),
    );
    expect(messages(failing)).toContain(
      `the zone already has an SPF record at ${name} that this stack did not make`,
    );
    expect(messages(failing)).toContain("include:spf.postal.example.com");
    expect(recordsAt(name).find((record) => record.type === "TXT")).toEqual(merged);
    await destroyRun(up, run("live", "test"));
    expect(unquoteTxt(String(recordsAt(name).find((r) => r.type === "TXT")!.content))).toBe(
      "v=spf1 include:_spf.google.com ~all",
    );
  });

  it("overwrite, then fail: the record stays the one the stack holds (same resource, a policy decides only at a create), and destroy gives the user's back", async () => {
    const name = freshName();
    await emulator().cloudflare.addRecord(zoneId, {
      name,
      type: "TXT",
      content: quoteTxt("v=spf1 -all"),
      ttl: 3600,
      comment: "mine",
    });
    const up = await runProgram(
      mailProgram(name, { cloudflare: { zoneId, existingRecords: { spf: "overwrite" } } }),
      run("live", "test"),
    );
    expect(messages(up)).toBe("");

    const switched = await runProgram(
      mailProgram(name),
      run("live", "test", { hooks: { newResource: unchangedFrom(up) } }),
    );
    expect(messages(switched)).toBe("");
    // One SPF record, the stack's; the claimed record (still in state) gives the user's back on destroy.
    expect(recordsAt(name).filter((record) => record.type === "TXT")).toHaveLength(1);
    await destroyRun(up, run("live", "test"));
    expect(recordsAt(name).find((record) => record.type === "TXT")).toMatchObject({
      content: '"v=spf1 -all"',
      comment: "mine",
    });
  });
});

describe("two stacks of one project and stack name in different organizations or backends", () => {
  it("take each other's records for their own (the mark names project and stack only): the second's update is refused by Cloudflare and changes nothing of the first's", async () => {
    const name = freshName();
    const first = await runProgram(mailProgram(name), run("live", "prod"));
    expect(messages(first)).toBe("");
    const before = recordsAt(name);

    // The other organization's stack runs against its own email server (another API key).
    const server = await fetch(`${emulator().emailApi.url}/api/v1/server/create`, {
      method: "POST",
      headers: { "X-Master-Key": emulator().emailApi.masterKey, "Content-Type": "application/json" },
      body: JSON.stringify({ name: `other-org-${counter}`, mode: "Live" }),
    }).then((response) => response.json() as Promise<{ data: { api_key: string } }>);
    const second = await runProgram(
      mailProgram(name),
      run("live", "prod", { config: { "emailDelivery:apiKey": server.data.api_key } }),
    );
    // Its preview sees the first stack's records as its own, so it is the update that stops.
    expect(messages(second)).toMatch(/which no resource of this stack holds|8105[38]/);
    expect(recordsAt(name)).toEqual(expect.arrayContaining(before));
    await destroyRun(
      second,
      run("live", "prod", { config: { "emailDelivery:apiKey": server.data.api_key } }),
    );
    await destroyRun(first, run("live", "prod"));
  });
});
