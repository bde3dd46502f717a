import { markedComment } from "../../provider/dns/ownership";
import { quoteTxt } from "../../provider/dns/txt";
import { useEmulator } from "../support/emulator";
import {
  claimedInputs,
  claimedProvider,
  configureClaimedProvider,
  SERVICE_SPF,
  zoneEditor,
} from "../support/zone-harness";

/**
 * The upgrade from a version that published a Domain's records as `cloudflare.DnsRecord`s: the
 * `ClaimedDnsRecord` that replaces each one carries an alias from that type, so the engine calls
 * its provider's diff and update with the state the Cloudflare provider left (no `ownership`).
 * The record is taken on by its id; nothing is deleted or made again.
 */

const emulator = useEmulator();
const { cloudflare, recordsAt, byId } = zoneEditor(emulator);
let zoneId: string;
let counter = 0;
const freshName = () => `upgrade${++counter}-${process.pid}.example.com`;

beforeAll(async () => {
  zoneId = emulator().cloudflare.zones[0].id;
  await configureClaimedProvider(emulator());
});

/** A record as the Cloudflare provider made it for the stack, and the state it kept. */
async function madeByCloudflareProvider(name: string) {
  const comment = markedComment("email-delivery", "test", "email spf");
  const sent = { name, type: "TXT", content: quoteTxt(SERVICE_SPF), ttl: 300, proxied: false, comment };
  const record = (await cloudflare("POST", "", sent)) as unknown as { id: string; created_on: string };
  // The outputs of a `cloudflare.DnsRecord` (pulumi-cloudflare 6), as stored: its inputs and more.
  const state = {
    id: record.id,
    zoneId,
    ...sent,
    createdOn: record.created_on,
    meta: {},
    proxiable: false,
    settings: {},
    tags: [],
  };
  return { id: record.id, state, comment };
}

it("diff asks for an update (never a replace) when only the resource type changed", async () => {
  const name = freshName();
  const { id, state, comment } = await madeByCloudflareProvider(name);
  const news = claimedInputs(zoneId, { name, content: quoteTxt(SERVICE_SPF), policy: "fail", comment });
  const diff = await claimedProvider.diff(id, state, news);
  expect(diff).toMatchObject({ changes: true, replaces: [] });
});

it("update takes the record on by its id without writing it, and keeps nothing of the Cloudflare provider's state", async () => {
  const name = freshName();
  const { id, state, comment } = await madeByCloudflareProvider(name);
  const before = byId(id);
  const news = claimedInputs(zoneId, { name, content: quoteTxt(SERVICE_SPF), policy: "fail", comment });
  emulator().requests.clear();
  const { outs } = await claimedProvider.update(id, state, news);
  expect(outs).toMatchObject({
    recordId: id,
    ownership: "created",
    policy: "fail",
    publishedContent: quoteTxt(SERVICE_SPF),
  });
  expect(outs).not.toHaveProperty("createdOn");
  expect(outs).not.toHaveProperty("meta");
  // One read by id; no write.
  expect(
    emulator()
      .requests.all()
      .map((entry) => entry.endpoint),
  ).toEqual(["cloudflare:dns_records.get"]);
  expect(byId(id)).toEqual(before);

  // Destroy afterwards deletes it, as the stack made it.
  await claimedProvider.delete(id, outs);
  expect(recordsAt(name)).toEqual([]);
});

it("update writes the record as the inputs say where it differs (a TTL changed with the upgrade)", async () => {
  const name = freshName();
  const { id, state, comment } = await madeByCloudflareProvider(name);
  const news = {
    ...claimedInputs(zoneId, { name, content: quoteTxt(SERVICE_SPF), policy: "fail", comment }),
    ttl: 600,
  };
  const { outs } = await claimedProvider.update(id, state, news);
  expect(outs).toMatchObject({ recordId: id, ownership: "created" });
  expect(byId(id)).toMatchObject({ id, ttl: 600 });
  expect(recordsAt(name)).toHaveLength(1);
});

it("update refuses a record the user has since taken for their own, and changes nothing", async () => {
  const name = freshName();
  const { id, state, comment } = await madeByCloudflareProvider(name);
  await cloudflare("PATCH", `/${id}`, { comment: "ours now" });
  const news = claimedInputs(zoneId, { name, content: quoteTxt(SERVICE_SPF), policy: "fail", comment });
  await expect(claimedProvider.update(id, state, news)).rejects.toThrow(/no longer this stack's/);
  expect(byId(id)).toMatchObject({ comment: "ours now" });
});
