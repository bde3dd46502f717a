import { promises as dns } from "node:dns";
import type { DomainArgs } from "../../provider";
import type { ClaimedRecordInputs } from "../../provider/inputs";
import type { ClaimedRecordOutputs } from "../../provider/dynamic/claimed-record-contents";
import { quoteTxt, unquoteTxt } from "../../provider/dns/txt";
import { useEmulator } from "../support/emulator";
import {
  claimedInputs,
  claimedProvider,
  configureClaimedProvider,
  createClaimed,
  domainProgram,
  messages,
  OWNER,
  refreshClaimed,
  returnPathInputs,
  SERVICE_SPF,
  zoneEditor,
} from "../support/zone-harness";
import { runProgram, RunOptions } from "../../testing";

/**
 * The defects a review of DNS ownership reproduced against the emulator, one test each: the
 * claimed record provider as the provider host calls it, and programs under the test kit, with a
 * user who edits the zone between the calls.
 */

const emulator = useEmulator();
const { cloudflare, userRecord, recordsAt, byId } = zoneEditor(emulator);
let zoneId: string;
let counter = 0;
const freshName = () => `review${++counter}-${process.pid}.example.com`;

beforeAll(async () => {
  zoneId = emulator().cloudflare.zones[0].id;
  dns.setServers([emulator().dns.address]);
  await configureClaimedProvider(emulator());
});

const inputs = (fields: Parameters<typeof claimedInputs>[1]) => claimedInputs(zoneId, fields);
const returnPath = (name: string, policy: ClaimedRecordInputs["policy"]) =>
  returnPathInputs(zoneId, name, policy);
const provider = claimedProvider;
const create = createClaimed;
/** What `pulumi refresh` stores: the read's outputs. */
const refresh = async (id: string, outs: ClaimedRecordOutputs) => (await refreshClaimed(id, outs)).props;

const mailProgram = (name: string, args: Partial<DomainArgs> = {}) => domainProgram(() => zoneId, name, args);
const preview = (): RunOptions => ({ mode: "preview", emulator: emulator(), timeoutMs: 10_000 });
const live = (): RunOptions => ({ mode: "live", emulator: emulator(), timeoutMs: 60_000 });
const domainCreates = () => emulator().requests.count("domains/create");

describe("1. a proxied record", () => {
  it("is not adopted as identical: DNS answers for it with Cloudflare's addresses", async () => {
    const name = `psrp.${freshName()}`;
    const theirs = await userRecord({
      name,
      type: "CNAME",
      content: "rp.postal.example.com",
      proxied: true,
      ttl: 1,
    });
    const error = (await provider.create(returnPath(name, "adopt")).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("is proxied through Cloudflare");
    expect(error.message).toContain('choose "overwrite"');
    expect(error.message).toContain("Nothing was changed in the zone.");
    expect(byId(theirs.id)).toMatchObject({ proxied: true, content: "rp.postal.example.com" });
  });

  it("made proxied by hand after it was claimed is drift: the next update writes it unproxied", async () => {
    const name = `psrp.${freshName()}`;
    const news = returnPath(name, "overwrite");
    const { id, outs } = await create(news);
    const current = byId(id);
    await cloudflare("PUT", `/${id}`, { ...current, proxied: true, ttl: 1 });
    const refreshed = await refresh(id, outs);
    expect(refreshed.publishedProxied).toBe(true);
    expect((await provider.diff(id, refreshed, news)).changes).toBe(true);
    const updated = await provider.update(id, refreshed, news);
    expect(updated.outs).not.toHaveProperty("publishedProxied");
    expect(byId(id)).toMatchObject({ proxied: false, content: "rp.postal.example.com" });
  });

  it("is answered by the emulator's DNS as Cloudflare answers it: its edge's addresses, never the CNAME", async () => {
    const name = `psrp.${freshName()}`;
    await userRecord({ name, type: "CNAME", content: "rp.postal.example.com", proxied: true, ttl: 1 });
    await expect(dns.resolveCname(name)).rejects.toMatchObject({ code: "ENODATA" });
    expect(await dns.resolve4(name)).toEqual(["104.16.132.229", "104.16.133.229"]);
  });

  it("a Domain adopting a proxied return path fails its preview, and its `up` makes nothing", async () => {
    const name = freshName();
    await userRecord({
      name: `psrp.${name}`,
      type: "CNAME",
      content: "rp.postal.example.com",
      proxied: true,
      ttl: 1,
    });
    const program = mailProgram(name, { cloudflare: { zoneId, existingRecords: { returnPath: "adopt" } } });
    expect(messages(await runProgram(program, preview()))).toContain("is proxied through Cloudflare");
    const before = domainCreates();
    expect(messages(await runProgram(program, live()))).toContain("is proxied through Cloudflare");
    expect(domainCreates()).toBe(before);
  });
});

describe("2. destroy of a record the user has since moved or remade", () => {
  it("overwritten, then moved to another name and type: destroy leaves it as it is now", async () => {
    const name = `psrp.${freshName()}`;
    const theirs = await userRecord({ name, type: "A", content: "192.0.2.7", comment: "bounce box" });
    const { id, outs } = await create(returnPath(name, "overwrite"));
    expect(id).toBe(theirs.id);
    const elsewhere = `moved-${freshName()}`;
    await cloudflare("PUT", `/${id}`, { name: elsewhere, type: "A", content: "192.0.2.99", ttl: 300 });
    await provider.delete(id, outs);
    expect(byId(id)).toMatchObject({ name: elsewhere, type: "A", content: "192.0.2.99" });
    expect(recordsAt(name)).toEqual([]);
  });

  it("created, then given another comment by the user: destroy leaves it", async () => {
    const name = freshName();
    const { id, outs } = await create(inputs({ name, policy: "overwrite" }));
    const current = byId(id);
    await cloudflare("PUT", `/${id}`, { ...current, comment: "ours now: the marketing team" });
    await provider.delete(id, outs);
    expect(byId(id)).toMatchObject({ comment: "ours now: the marketing team" });
  });
});

describe("3. a merged SPF record the user turned into other TXT content", () => {
  it("after a refresh, the preview replaces the claim instead of failing, and the stack publishes its own SPF", async () => {
    const name = freshName();
    const theirs = await userRecord({ name, type: "TXT", content: quoteTxt("v=spf1 mx -all") });
    const news = inputs({ name });
    const { id, outs } = await create(news);
    await cloudflare("PUT", `/${String(theirs.id)}`, {
      name,
      type: "TXT",
      content: '"site-verification=abc"',
      ttl: 3600,
    });
    const refreshed = await refresh(id, outs);

    const diff = await provider.diff(id, refreshed, news);
    expect(diff).toMatchObject({ changes: true, replaces: ["content"], deleteBeforeReplace: true });
    // The replacement: delete (nothing of the stack's is left in it), then a new claim.
    await provider.delete(id, refreshed);
    const { outs: again } = await create(news);
    expect(again.ownership).toBe("created");
    expect(
      recordsAt(name)
        .map((r) => unquoteTxt(String(r.content)))
        .sort(),
    ).toEqual(["site-verification=abc", SERVICE_SPF]);
  });
});

describe("4. a CNAME where the Domain publishes another type", () => {
  it.each([
    ["at _dmarc (hosted DMARC)", (name: string) => `_dmarc.${name}`, { dmarc: { policy: "none" } }],
    // The zone id is the one the program gives (it is not known yet when this table is made).
    ["at the domain's name", (name: string) => name, { cloudflare: { existingRecords: "overwrite" } }],
  ] as const)("%s fails the preview under any policy, and `up` makes nothing", async (_what, at, args) => {
    const name = freshName();
    await userRecord({ name: at(name), type: "CNAME", content: "elsewhere.example.net" });
    const program = mailProgram(name, args as Partial<DomainArgs>);
    const said = messages(await runProgram(program, preview()));
    expect(said).toContain(`the zone has a CNAME at ${at(name)}`);
    expect(said).toContain("cannot be published there under any policy");
    const before = domainCreates();
    expect(messages(await runProgram(program, live()))).toContain(`the zone has a CNAME at ${at(name)}`);
    expect(domainCreates()).toBe(before);
  });
});

// 5. Merging into an SPF record already at 10 lookups: tests/programs/existing-records.test.ts
// ("fails the preview of a new domain whose SPF record is already at the 10-lookup limit").

describe("6. the service's SPF include changes", () => {
  it("the next update takes the old include out of the user's record and adds the new one", async () => {
    const name = freshName();
    await userRecord({ name, type: "TXT", content: quoteTxt("v=spf1 include:_spf.google.com ~all") });
    const { id, outs } = await create(inputs({ name }));
    // The service's new include leads to its SPF record, as receivers need.
    await userRecord({
      name: "spf2.postal.example.com",
      type: "TXT",
      content: quoteTxt("v=spf1 ip4:198.51.100.0/24 ~all"),
    });
    const moved = inputs({ name, content: quoteTxt("v=spf1 a mx include:spf2.postal.example.com ~all") });
    expect((await provider.diff(id, outs, moved)).changes).toBe(true);
    const updated = await provider.update(id, outs, moved);
    expect(updated.outs.added).toEqual(["spf2.postal.example.com"]);
    expect(unquoteTxt(String(byId(id).content))).toBe(
      "v=spf1 include:_spf.google.com include:spf2.postal.example.com ~all",
    );
  });
});

describe("7. MX add, the user's MX to the service's host at another priority", () => {
  it("is refused, naming both priorities, instead of adopted at the user's priority", async () => {
    const name = freshName();
    const theirs = await userRecord({ name, type: "MX", content: "mx.postal.example.com", priority: 20 });
    const error = (await provider
      .create(
        inputs({
          name,
          purpose: "mx",
          type: "MX",
          content: "mx.postal.example.com",
          priority: 10,
          comment: `pulumi ${OWNER}: email mx`,
          policy: "add",
        }),
      )
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("to the service's mail host at another priority");
    expect(error.message).toContain("the service's is priority 10");
    expect(recordsAt(name)).toEqual([expect.objectContaining({ id: theirs.id, priority: 20 })]);
  });
});
