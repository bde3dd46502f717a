import type { CloudflareRecordInput, Emulator } from "../../emulator";
import { Domain, DomainArgs } from "../../provider";
import { quoteTxt } from "../../provider/dns/txt";
import type { ClaimedRecordInputs } from "../../provider/inputs";
import { claimedRecordProvider } from "../../provider/dynamic";
import type { ClaimedRecordOutputs } from "../../provider/dynamic/claimed-record-contents";
import { forgetConfig } from "../../provider/dynamic/configured";
import type { ProgramRun } from "../../testing";
import { zoneRecordsApi } from "./cloudflare";
import { configureRequest } from "./providers";

/**
 * What the DNS-ownership tests share: the stand-in's zone as a user's own tooling (or the
 * dashboard) edits it between a stack's commands, and the claimed record provider called as the
 * provider host calls it.
 */

/** The stack the claimed records of these tests belong to (the kit's default project and stack). */
export const OWNER = "email-delivery/test";
/** The SPF record the emulator's service asks its domains to publish. */
export const SERVICE_SPF = "v=spf1 a mx include:spf.postal.example.com ~all";

/**
 * The stand-in's zone as a user edits it: records added, listed and read through the emulator's
 * seeding methods (what a POST and a list would do), `cloudflare` for the edits they do not make
 * (PUT, PATCH), over HTTP as a user's tooling sends them (`path` follows `/zones/{zone}/dns_records`).
 */
export function zoneEditor(emulator: () => Emulator) {
  const cloudflare = (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> =>
    zoneRecordsApi(emulator(), method, path, body);
  const zone = () => emulator().cloudflare.zones[0].id;
  return {
    cloudflare,
    /** A record made by hand (TTL 3600, not proxied, unless given). */
    userRecord: (fields: CloudflareRecordInput) =>
      emulator().cloudflare.addRecord(zone(), { ttl: 3600, proxied: false, ...fields }),
    /** The zone's records named `name`, as Cloudflare holds them. */
    recordsAt: (name: string) => emulator().cloudflare.records(zone(), { name }),
    /** The zone's record `id` (throws when the zone no longer holds it). */
    byId: (id: string) => {
      const record = emulator()
        .cloudflare.records(zone())
        .find((candidate) => candidate.id === id);
      if (!record) throw new Error(`the zone holds no record ${id}`);
      return record;
    },
  };
}

/** A claimed SPF record's inputs (merging the service's SPF record), with `fields` over them. */
export function claimedInputs(
  zoneId: string,
  fields: Partial<ClaimedRecordInputs> & Pick<ClaimedRecordInputs, "name">,
): ClaimedRecordInputs {
  return {
    zoneId,
    purpose: "spf",
    type: "TXT",
    content: quoteTxt(SERVICE_SPF),
    ttl: 300,
    comment: `pulumi ${OWNER}: email spf`,
    policy: "merge",
    owner: OWNER,
    ...fields,
  };
}

/** A claimed return-path record's inputs. */
export function returnPathInputs(zoneId: string, name: string, policy: ClaimedRecordInputs["policy"]) {
  return claimedInputs(zoneId, {
    name,
    purpose: "return_path",
    type: "CNAME",
    content: "rp.postal.example.com",
    comment: `pulumi ${OWNER}: email return path`,
    policy,
  });
}

export const claimedProvider = claimedRecordProvider;

/**
 * Configures the claimed record provider with the emulator's Cloudflare settings and `more` (in
 * `beforeAll`): one configure() is the whole stack config, as the host sends it.
 */
export async function configureClaimedProvider(
  emulator: Emulator,
  more: Record<string, string> = {},
): Promise<void> {
  forgetConfig();
  await claimedProvider.configure(
    configureRequest({
      "cloudflare:apiToken": emulator.cloudflare.apiToken,
      "cloudflare:baseUrl": emulator.cloudflare.url,
      ...more,
    }),
  );
}

/** `check` then `create`, as the host runs a new claimed record. */
export async function createClaimed(
  news: ClaimedRecordInputs,
): Promise<{ id: string; outs: ClaimedRecordOutputs }> {
  const checked = await claimedProvider.check({}, news);
  if ((checked.failures ?? []).length > 0)
    throw new Error(`check failed: ${JSON.stringify(checked.failures)}`);
  return claimedProvider.create(checked.inputs);
}

/** What `pulumi refresh` does with a claimed record: its id (undefined: gone) and outputs. */
export async function refreshClaimed(
  id: string,
  outs: ClaimedRecordOutputs,
): Promise<{ id?: string; props: ClaimedRecordOutputs }> {
  return (await claimedProvider.read(id, outs)) as { id?: string; props: ClaimedRecordOutputs };
}

/** A run's errors, one message a line. */
export const messages = (run: ProgramRun<string>): string =>
  run.errors.map((error) => error.message).join("\n");

/**
 * A program with one `Domain` "mail" named `name` publishing in `zoneId`, its verification short
 * (30 s, polled every second), `args` over that; it returns `verified`.
 */
export function domainProgram(zoneId: () => string, name: string, args: Partial<DomainArgs> = {}) {
  return () => {
    const domain = new Domain("mail", {
      name,
      ...args,
      cloudflare: { zoneId: zoneId(), ...args.cloudflare },
      verification: { timeoutSeconds: 30, pollIntervalSeconds: 1 },
    });
    return { verified: domain.verified };
  };
}
