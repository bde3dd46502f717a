import { promises as dns } from "node:dns";
import type { ClaimedRecordInputs } from "../../provider/inputs";
import { quoteTxt } from "../../provider/dns/txt";
import { useEmulator } from "../support/emulator";
import {
  claimedInputs,
  claimedProvider,
  configureClaimedProvider,
  createClaimed,
  OWNER,
  refreshClaimed,
  returnPathInputs,
  zoneEditor,
} from "../support/zone-harness";

/**
 * Found by a review of the claimed record provider, called as the provider host calls
 * it against the emulator's Cloudflare stand-in, with a user who edits the zone between calls.
 * Each test failed on the code as reviewed and states the expected behaviour.
 */

const emulator = useEmulator();
const { cloudflare, userRecord, byId } = zoneEditor(emulator);
let zoneId: string;
let counter = 0;
const freshName = () => `prev${++counter}-${process.pid}.example.com`;

beforeAll(async () => {
  zoneId = emulator().cloudflare.zones[0].id;
  dns.setServers([emulator().dns.address]);
  await configureClaimedProvider(emulator());
});
afterEach(() => emulator().faults.set([]));

const inputs = (fields: Parameters<typeof claimedInputs>[1]) => claimedInputs(zoneId, fields);
const returnPath = (name: string, policy: ClaimedRecordInputs["policy"]) =>
  returnPathInputs(zoneId, name, policy);
const provider = claimedProvider;
const create = createClaimed;
const refresh = refreshClaimed;

describe("a claimed record the user has since moved to another name and type", () => {
  it("is the user's again at the next `up --refresh` too (as at destroy): it is not written back over", async () => {
    const name = `psrp.${freshName()}`;
    const theirs = await userRecord({ name, type: "A", content: "192.0.2.7", comment: "bounce box" });
    const news = returnPath(name, "overwrite");
    const { id, outs } = await create(news);
    expect(id).toBe(theirs.id);

    // The user takes the record back for something else: another name, another type, no mark.
    const elsewhere = `moved-${freshName()}`;
    await cloudflare("PUT", `/${id}`, {
      name: elsewhere,
      type: "A",
      content: "192.0.2.99",
      ttl: 300,
      comment: "web server",
    });

    // `pulumi refresh` (or `up --refresh`), then `up`.
    const refreshed = await refresh(id, outs);
    if (refreshed.id !== undefined) {
      const diff = await provider.diff(id, refreshed.props, news);
      if (diff.changes && !(diff.replaces ?? []).length) {
        await provider.update(id, refreshed.props, news).catch(() => undefined);
      }
    }
    // Expected: the user's record stays as they made it (destroy already treats it so); the stack
    // claims its return path anew instead of converting the user's web server back into a CNAME.
    expect(byId(id)).toMatchObject({ name: elsewhere, type: "A", content: "192.0.2.99" });
  });
});

describe("a record the stack created that the user has since given their own comment and content", () => {
  it("counts as someone else's at the next run (docs/existing-records.md: a record whose mark was removed by hand): `up --refresh` does not write over it", async () => {
    const name = `_dmarc.${freshName()}`;
    const news = inputs({
      name,
      purpose: "dmarc",
      content: quoteTxt("v=DMARC1; p=none"),
      comment: `pulumi ${OWNER}: email dmarc`,
      policy: "overwrite",
    });
    const { id, outs } = await create(news);
    expect(outs.ownership).toBe("created");
    // The security team takes the DMARC record over by hand: their policy, their comment.
    const current = byId(id);
    await cloudflare("PUT", `/${id}`, {
      ...current,
      content: quoteTxt("v=DMARC1; p=reject; rua=mailto:sec@example.com"),
      comment: "security team",
    });

    const refreshed = await refresh(id, outs);
    if (refreshed.id !== undefined) {
      const diff = await provider.diff(id, refreshed.props, news);
      if (diff.changes && !(diff.replaces ?? []).length) {
        await provider.update(id, refreshed.props, news).catch(() => undefined);
      }
    }
    // Expected: left as the user made it (as destroy leaves it), or a refusal naming it: not overwritten.
    expect(byId(id)).toMatchObject({
      content: quoteTxt("v=DMARC1; p=reject; rua=mailto:sec@example.com"),
      comment: "security team",
    });
  });
});
