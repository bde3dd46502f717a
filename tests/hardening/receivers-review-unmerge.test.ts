import { promises as dns } from "node:dns";
import { claimedRecordProvider } from "../../provider/dynamic";
import type { ClaimedRecordOutputs } from "../../provider/dynamic/claimed-record-contents";
import { forgetConfig } from "../../provider/dynamic/configured";
import type { ClaimedRecordInputs } from "../../provider/inputs";
import { quoteTxt } from "../../provider/dns/txt";
import type { CloudflareRecordInput } from "../../emulator";
import { useEmulator } from "../support/emulator";
import { zoneRecordsApi } from "../support/cloudflare";
import { configureRequest } from "../support/providers";
import { claimedInputs } from "../support/zone-harness";

/**
 * Adversarial review of the SPF merge's respelling (dns/spf.ts respellSpfIncludes) and its undoing
 * (claimed-record-provider.ts unmerge): destroy gives back the user's record byte for byte, and
 * leaves alone what someone else changed since.
 */

const emulator = useEmulator();
let zoneId: string;
let counter = 0;
const freshName = () => `rsp${++counter}-${process.pid}.example.com`;

beforeAll(async () => {
  zoneId = emulator().cloudflare.zones[0].id;
  dns.setServers([emulator().dns.address]);
  forgetConfig();
  await claimedRecordProvider.configure(
    configureRequest({
      "cloudflare:apiToken": emulator().cloudflare.apiToken,
      "cloudflare:baseUrl": emulator().cloudflare.url,
    }),
  );
});

const userRecord = (fields: CloudflareRecordInput) =>
  emulator().cloudflare.addRecord(zoneId, { ttl: 3600, proxied: false, ...fields });
const recordsAt = (name: string) => emulator().cloudflare.records(zoneId, { name });
const provider = claimedRecordProvider;

async function create(news: ClaimedRecordInputs): Promise<{ id: string; outs: ClaimedRecordOutputs }> {
  const checked = await provider.check({}, news);
  expect(checked.failures ?? []).toEqual([]);
  return (await provider.create(checked.inputs)) as { id: string; outs: ClaimedRecordOutputs };
}

describe("merge, respell, destroy: the user's record back byte for byte", () => {
  it.each([
    [
      "+INCLUDE: in capitals with a final dot, quoted",
      quoteTxt("v=spf1 +INCLUDE:SPF.POSTAL.EXAMPLE.COM. ~all"),
    ],
    ["V=SPF1 and INCLUDE:, unquoted", "V=SPF1 mx INCLUDE:Spf.Postal.Example.Com -all"],
    ["split into two strings", '"v=spf1 INCLUDE:spf.postal.example.com" " ~all"'],
    ["V=SPF1 without the include (one is added)", quoteTxt("V=SPF1 mx  -all")],
  ])("held: %s", async (_what, content) => {
    const name = freshName();
    await userRecord({ name, type: "TXT", content, comment: "theirs" });
    const { id, outs } = await create(claimedInputs(zoneId, { name }));
    const merged = String((await recordsAt(name))[0].content);
    expect(merged).toMatch(/include:spf\.postal\.example\.com/);
    await provider.delete(id, outs);
    expect(await recordsAt(name)).toEqual([expect.objectContaining({ content, comment: "theirs" })]);
  });

  it("held: a record another hand changed since the respell (an include added) is left as they left it", async () => {
    const name = freshName();
    await userRecord({ name, type: "TXT", content: quoteTxt("v=spf1 INCLUDE:SPF.POSTAL.EXAMPLE.COM ~all") });
    const { id, outs } = await create(claimedInputs(zoneId, { name }));
    const [now] = await recordsAt(name);
    const theirs = quoteTxt("v=spf1 include:spf.postal.example.com include:other.example.net ~all");
    await zoneRecordsApi(emulator(), "PATCH", `/${String(now.id)}`, { content: theirs });
    await provider.delete(id, outs);
    expect((await recordsAt(name))[0].content).toBe(theirs);
  });
});
