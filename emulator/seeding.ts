import { CloudflareServiceContext } from "./cloudflare";
import { CloudflareRecordJson } from "./cloudflare/record-json";
import {
  CloudflareRecordFilter,
  CloudflareRecordInput,
  seedRecord,
  unseedRecord,
  zoneRecords,
} from "./cloudflare/seed";
import { splitQuotedString } from "./cloudflare/txt-content";
import { zoneHolding } from "./cloudflare/zones";
import { EmailApiContext } from "./email-api";
import { CreatedDomainJson, createdDomainJson, DomainJson } from "./email-api/domains";
import { RouteJson } from "./email-api/routes";
import { SeedRouteInput, serverSeeding } from "./email-api/seed";
import { MessageRecord, ServerRecord } from "./store/state";

/**
 * Seeding and inspecting the emulator from a test, without HTTP: `emulator.cloudflare.addRecord`,
 * `emulator.emailApi.addDomain`, … Each goes through the functions the HTTP endpoints run (the
 * same validation, conflicts and answers), so what a test seeds is what the service or Cloudflare
 * could hold. Unlike a request, a call is not in `emulator.requests`, and faults and the rate
 * limit do not apply to it. Writes resolve once the change is in the state file (when there is
 * one), as an answer goes out only then; reads are synchronous.
 */

/** What `emulator.cloudflare` offers besides its settings. */
export interface CloudflareSeeding {
  /**
   * Adds a record to a zone as `POST /zones/{zone}/dns_records` would: the same validation and
   * conflict rules (an identical record, a CNAME beside another record, …), thrown as a
   * `CloudflareApiError` with Cloudflare's code and message.
   * @param zone the zone's id or name
   * @returns the record as the API answers it (with its id)
   * @example
   * await emulator.cloudflare.addRecord("example.com", {
   *   type: "TXT",
   *   name: "example.com",
   *   content: '"v=spf1 include:_spf.google.com ~all"',
   *   ttl: 3600,
   * });
   */
  addRecord(zone: string, record: CloudflareRecordInput): Promise<CloudflareRecordJson>;
  /**
   * The zone's records as the API lists them (in the order they were made), those at `filter`'s
   * name and of its type only when given.
   * @param zone the zone's id or name
   * @example emulator.cloudflare.records("example.com", { name: "example.com", type: "TXT" })
   */
  records(zone: string, filter?: CloudflareRecordFilter): CloudflareRecordJson[];
  /**
   * Deletes a record as `DELETE /zones/{zone}/dns_records/{id}` would (`CloudflareApiError` 81044
   * when the zone holds no such record).
   * @param zone the zone's id or name
   */
  removeRecord(zone: string, id: string): Promise<void>;
}

/** How `emulator.emailApi.addDomain` makes a domain. */
export interface AddDomainOptions {
  /**
   * Set the domain up as its owner would have: publish its DNS records (as `domains/create`
   * gave them, TXT quoted, TTL automatic, no comment) in the emulator's zone that holds its name,
   * then run the service's check, which resolves them through the emulator's DNS server, so its
   * four statuses are `OK`. Fails, changing nothing, when no zone of the emulator holds the name;
   * fails when a record is refused (one already there) or the check does not pass, naming why.
   * @default false (the domain as `domains/create` leaves it: statuses null, nothing published)
   */
  verified?: boolean;
}

/** What `emulator.emailApi` offers besides its settings. Everything is on the emulator's server. */
export interface EmailApiSeeding {
  /**
   * Adds a domain as `domains/create` would (the same name rules; "Name is already added" for a
   * name the server holds), as another stack or an administrator made it. Refusals are the
   * service's `ApiError` (`code`, the service's message) or `ParameterError`.
   * @returns the domain as `domains/create` answers it, with `dns_records` (after the check when `verified`)
   * @example
   * const domain = await emulator.emailApi.addDomain("mail.example.com", { verified: true });
   */
  addDomain(name: string, options?: AddDomainOptions): Promise<CreatedDomainJson>;
  /**
   * Adds a route as `routes/create` would (the same rules: modes, a name taken on the domain, an
   * unknown domain or endpoint is "… is invalid"), thrown as the service's `ApiError`.
   * @returns the route as the API answers it
   * @example
   * await emulator.emailApi.addRoute({ name: "support", domain: "mail.example.com", mode: "Hold" });
   */
  addRoute(route: SeedRouteInput): Promise<RouteJson>;
  /** The server's domains as `domains/list` answers them. */
  domains(): DomainJson[];
  /** The server's routes as `routes/list` answers them. */
  routes(): RouteJson[];
  /**
   * The messages `send/message` accepted on the server, one record per recipient, oldest first, as
   * stored: with `raw` (the message as Postal would send it, DKIM-signed), its SMTP envelope
   * (`mailFrom`, `helo`) and the address it leaves from (`clientIp`), what a receiver judges.
   * Copies: changing one changes nothing.
   * @example
   * const [sent] = emulator.emailApi.messages().filter((m) => m.rcptTo === "someone@example.org");
   */
  messages(): MessageRecord[];
}

export interface SeedingContext {
  cloudflare: CloudflareServiceContext;
  emailApi: EmailApiContext;
  /** The server `emulator.emailApi.apiKey` opens. */
  server: ServerRecord;
}

/** The seeding methods of `emulator.cloudflare` and `emulator.emailApi`. */
export function emulatorSeeding({ cloudflare, emailApi, server }: SeedingContext): {
  cloudflare: CloudflareSeeding;
  emailApi: EmailApiSeeding;
} {
  const store = cloudflare.store;
  // The HTTP layer answers once the change is durable; a seeding call resolves then too.
  const durable = async <T>(change: () => T | Promise<T>): Promise<T> => {
    const result = await change();
    await store.persisted();
    return result;
  };
  const service = serverSeeding(emailApi, server);

  return {
    cloudflare: {
      addRecord: (zone, record) => durable(() => seedRecord(cloudflare, zone, record)),
      records: (zone, filter) => zoneRecords(cloudflare, zone, filter),
      removeRecord: (zone, id) => durable(() => unseedRecord(cloudflare, zone, id)),
    },
    emailApi: {
      addDomain: (name, options = {}) =>
        durable(async () => {
          const zone = options.verified ? zoneHolding(store, name) : undefined;
          if (options.verified && !zone) {
            const zones = store.state.cloudflare.zones.map((z) => z.name).join(", ");
            throw new Error(
              `addDomain("${name}", { verified: true }): the domain's records go in one of the emulator's zones (${zones}), and none holds ${name}: start the emulator with its zone in \`zones\``,
            );
          }
          let domain = await service.addDomain(name);
          if (!zone) return createdDomainJson(domain, emailApi.dns);
          for (const record of createdDomainJson(domain, emailApi.dns).dns_records) {
            seedRecord(cloudflare, zone.id, {
              type: record.type,
              name: record.name,
              content: record.type === "TXT" ? quotedTxt(record.value) : record.value,
              ...(record.priority !== undefined && { priority: record.priority }),
            });
          }
          domain = await service.checkDomain(domain.id);
          const failing = [
            ["spf", domain.spfStatus, domain.spfError],
            ["dkim", domain.dkimStatus, domain.dkimError],
            ["mx", domain.mxStatus, domain.mxError],
            ["return path", domain.returnPathStatus, domain.returnPathError],
          ].filter(([, status]) => status !== "OK");
          if (failing.length > 0)
            throw new Error(
              `addDomain("${name}", { verified: true }): the service's check did not pass with the records published: ${failing
                .map(([check, status, error]) => `${check} ${status}${error ? ` (${error})` : ""}`)
                .join("; ")}`,
            );
          return createdDomainJson(domain, emailApi.dns);
        }),
      addRoute: (route) => durable(() => service.addRoute(route)),
      domains: () => service.domains(),
      routes: () => service.routes(),
      messages: () => service.messages(),
    },
  };
}

/** TXT content as Cloudflare shows it: quoted, in strings of 255 bytes at most. */
function quotedTxt(value: string): string {
  return splitQuotedString(value.replace(/[\\"]/g, "\\$&"))
    .map((piece) => `"${piece}"`)
    .join(" ");
}
