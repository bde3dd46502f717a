import type { EmailApiError, ExistingObject } from "./errors";
import { answerLostThenRefused, findDomain, isAnswerLostObjectExists, isNameTaken } from "./natural-keys";
import type { ListOptions } from "./settings";
import type { CreatedDomain, DnsRecord, Domain } from "./types";

/** The client operations a domain with its records is made from. */
export interface DomainOperations {
  /** Creates a domain (`domains/create`). */
  createDomain(name: string): Promise<CreatedDomain>;
  /** Deletes a domain by id (`domains/delete`). */
  deleteDomain(id: number): Promise<void>;
  /** Lists the server's domains. */
  listDomains(options?: ListOptions): Promise<readonly Domain[]>;
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
  /** The service refused the name: a domain this call did not make holds it; nothing was changed. */
  | {
      /** Held by a domain this call did not make. */
      outcome: "taken";
      /** The domain holding the name. */
      existing: ExistingObject;
      /** The service's refusal. */
      error: EmailApiError;
    }
  /**
   * The create's answer was lost and a domain of that name exists now: this call's lost create or
   * another party's, which nothing tells apart (natural-keys.ts). It was left as it is.
   */
  | {
      /** The answer was lost; a domain of that name exists, whose is unknown. */
      outcome: "answerLost";
      /** The domain found. */
      existing: ExistingObject;
      /** The client's error, which says the same. */
      error: EmailApiError;
    }
  /** Created, but the readable answer carried no records (a deployment that does not send them); deleted again. */
  | {
      /** Created without records, and deleted again. */
      outcome: "answeredWithoutRecords";
      /** The domain made and deleted. */
      domain: Domain;
    };

/**
 * Makes a domain and gets its DNS records, which the service returns only in the answer to create.
 * A domain is deleted only when this call's own readable answer proves it made it (one answered
 * without records, which is of no use). Errors of the service itself are thrown.
 */
export async function createDomainWithRecords(
  client: DomainOperations,
  name: string,
): Promise<DomainCreation> {
  let created: CreatedDomain;
  try {
    created = await client.createDomain(name);
  } catch (error) {
    if (isAnswerLostObjectExists(error)) return { outcome: "answerLost", existing: error.existing, error };
    if (!isNameTaken(error)) throw error;
    // Refused, so not made by this call: say whose it may be (the refusal does not say). A list
    // only on this failure: a create that succeeds needs none.
    const existing = error.existing ?? findDomain(await client.listDomains({ fresh: true }), name);
    if (!existing) throw error;
    // Refused only after an answer of this call was lost (its tries ran out before it could look
    // again): the domain found may be what the lost request made, so it is not called another's.
    if (error.outcomeUnknown) {
      const holder = { id: existing.id, createdAt: existing.createdAt };
      const lost = answerLostThenRefused("domains/create", `a domain named ${name}`, holder, error);
      return { outcome: "answerLost", existing: holder, error: lost };
    }
    return { outcome: "taken", existing, error };
  }
  const { domain, dnsRecords } = created;
  if (dnsRecords) return { outcome: "created", domain, dnsRecords };
  await client.deleteDomain(domain.id);
  return { outcome: "answeredWithoutRecords", domain };
}
