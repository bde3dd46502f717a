import type { EmailApiError, ExistingObject } from "./errors";
import { findDomain, isNameTaken } from "./natural-keys";
import type { ListOptions } from "./settings";
import type { CreatedDomain, DnsRecord, Domain, Route } from "./types";

/** Creates tried when the answers carrying the records are lost. */
export const MAX_CREATES = 3;

/** The client operations a domain with its records is made from. */
export interface DomainOperations {
  /** Creates a domain (`domains/create`). */
  createDomain(name: string): Promise<CreatedDomain>;
  /** Deletes a domain by id (`domains/delete`). */
  deleteDomain(id: number): Promise<void>;
  /** Lists the server's domains. */
  listDomains(options?: ListOptions): Promise<readonly Domain[]>;
  /** Lists the server's routes. */
  listRoutes(options?: ListOptions): Promise<readonly Route[]>;
}

/** How making a domain with its records ended. Only "created" made something that is kept. */
export type DomainCreation =
  | {
      /** Made by this call, with the records to publish. */
      outcome: "created";
      /** The domain made. */
      domain: Domain;
      /** The records the service asks to be published. */
      dnsRecords: DnsRecord[];
    }
  /** The name is held by a domain this call did not make; nothing was changed. */
  | {
      /** Held by a domain this call did not make. */
      outcome: "taken";
      /** The domain holding the name. */
      existing: ExistingObject;
      /** The service's refusal. */
      error: EmailApiError;
      /** An earlier create of this call lost its answer: that create may be what landed late. */
      afterLostCreate: boolean;
    }
  /** Created, but the readable answer carried no records (a deployment that does not send them); deleted again. */
  | {
      /** Created without records, and deleted again. */
      outcome: "answeredWithoutRecords";
      /** The domain made and deleted. */
      domain: Domain;
    }
  /** The create's answer was lost and the domain found by name has routes: not this call's, left alone. */
  | {
      /** Found by name with routes: not this call's. */
      outcome: "foundWithRoutes";
      /** The domain found. */
      domain: Domain;
      /** How many routes it has. */
      routes: number;
    }
  /** The create's answer was lost, and deleting the domain it made (to make it again) failed. */
  | {
      /** Deleting the domain to make it again failed. */
      outcome: "deleteFailed";
      /** The domain that could not be deleted. */
      domain: Domain;
      /** Why the delete failed. */
      error: Error;
    }
  /** Every create's answer was lost; each domain made was deleted again. */
  | {
      /** Every create's answer was lost. */
      outcome: "lostEveryTime";
      /** How many creates were tried. */
      creates: number;
    };

/**
 * Makes a domain and gets its DNS records, which the service returns only in the answer to create.
 * `createDomain` proves ownership: the name was free when the call began, so a domain found after a
 * lost answer is this call's own (`recovered`, without records). Such a domain is deleted and
 * created again to get the records, `MAX_CREATES` times at most, leaving nothing behind when it
 * gives up. One that has routes is never deleted: a domain made a moment ago has none, so someone
 * else created the name while this call ran. Errors of the service itself are thrown.
 */
export async function createDomainWithRecords(
  client: DomainOperations,
  name: string,
): Promise<DomainCreation> {
  for (let creates = 1; ; creates++) {
    let created: CreatedDomain;
    try {
      created = await client.createDomain(name);
    } catch (error) {
      if (!isNameTaken(error)) throw error;
      // Not made by this call: say whose it may be (the service's own refusal does not say).
      const existing = error.existing ?? findDomain(await client.listDomains(), name);
      if (!existing) throw error;
      return { outcome: "taken", existing, error, afterLostCreate: creates > 1 };
    }
    const { domain, dnsRecords, recovered } = created;
    if (dnsRecords) return { outcome: "created", domain, dnsRecords };
    if (!recovered) {
      await client.deleteDomain(domain.id);
      return { outcome: "answeredWithoutRecords", domain };
    }
    const routes = (await client.listRoutes({ fresh: true })).filter((route) => route.domainId === domain.id);
    if (routes.length > 0) return { outcome: "foundWithRoutes", domain, routes: routes.length };
    try {
      await client.deleteDomain(domain.id);
    } catch (error) {
      return { outcome: "deleteFailed", domain, error: error as Error };
    }
    if (creates === MAX_CREATES) return { outcome: "lostEveryTime", creates };
  }
}
