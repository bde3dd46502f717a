import type * as dynamic from "@pulumi/pulumi/dynamic";
import {
  CheckStatuses,
  checkStatusesOf,
  DnsRecord,
  Domain,
  DomainCreation,
  findDomain,
  isObjectNotFound,
  sameDomainName,
} from "../client";
import { CheckedInputs, checkServiceDomainInputs, ServiceDomainInputs } from "../inputs";
import { rememberConfig } from "./configured";
import { READ_LIST_MAX_AGE_MS, serviceClient } from "./connection";
import { diffByRules } from "./diff";
import {
  Created,
  ReadAnswer,
  StoredProviderProperty,
  TypedResourceProvider,
  Updated,
  withoutStoredProvider,
} from "./stored-provider";

/**
 * What a `ServiceDomain` records in state: its inputs, and the checks' statuses when last read
 * (later versions must keep reading it).
 */
export interface ServiceDomainOutputs extends CheckStatuses {
  /** The service's numeric id (also the resource id). */
  domainId: number;
  /** The service's opaque id. */
  uuid: string;
  /** The domain name. */
  name: string;
  /** Whether an existing domain of this name was to be taken over (the input). */
  adopt: boolean;
  /** When the service created it (ISO 8601); null when the service did not say. */
  createdAt: string | null;
  /** The records to publish; the service returns them only when the domain is created. */
  dnsRecords: DnsRecord[];
}

/**
 * Inputs as the engine passes them once `check` has passed: with the provider's stored text.
 * @internal The provider's typing of the engine's calls.
 */
export type ServiceDomainProps = ServiceDomainInputs & StoredProviderProperty;

/**
 * State as any version stored it: what later versions added is absent from older state.
 * @internal The provider's typing of the engine's calls.
 */
export type StoredServiceDomain = Partial<ServiceDomainOutputs> & StoredProviderProperty;

/** The domainProvider as callers see it: every method there, each answer typed (see `TypedResourceProvider`). */
export type ServiceDomainProvider = TypedResourceProvider<
  ServiceDomainInputs,
  ServiceDomainOutputs,
  ServiceDomainInputs,
  StoredServiceDomain
>;

/**
 * The service's sending domain. There is no update call: a new name means a new domain, deleted
 * first because names are unique. Records come only from the create answer, so they are kept in
 * state and carried through refreshes.
 */
export const domainProvider: ServiceDomainProvider = {
  configure: rememberConfig,

  async check(_olds: unknown, news: object): Promise<CheckedInputs<ServiceDomainInputs>> {
    return checkServiceDomainInputs(news);
  },

  async diff(_id: string, olds: StoredServiceDomain, news: ServiceDomainProps): Promise<dynamic.DiffResult> {
    // `adopt` only matters when the domain is created, so changing it changes nothing.
    return diffByRules(olds, news, {
      replace: ["name"],
      update: [],
      deleteBeforeReplace: true,
      same: (_property, a, b) => typeof a === "string" && typeof b === "string" && sameDomainName(a, b),
    });
  },

  async create(inputs: ServiceDomainProps): Promise<Created<ServiceDomainOutputs>> {
    const client = serviceClient();
    if (inputs.adopt) {
      const existing = findDomain(await client.listDomains(), inputs.name);
      if (existing) return { id: String(existing.id), outs: domainOutputs(inputs, existing, []) };
    }
    // The client makes the domain and gets its records; it never takes or deletes a domain it cannot
    // prove it made (client/natural-keys.ts).
    const creation = await client.createDomainWithRecords(inputs.name);
    // Made meanwhile by whoever (another party, or this call's create whose answer was lost):
    // with `adopt`, the user takes it over whoever made it, as when it was there before.
    if (inputs.adopt && (creation.outcome === "taken" || creation.outcome === "answerLost")) {
      const existing = findDomain(await client.listDomains({ fresh: true }), inputs.name);
      if (existing) return { id: String(existing.id), outs: domainOutputs(inputs, existing, []) };
    }
    if (creation.outcome !== "created") throw creationFailure(inputs.name, creation);
    const { domain, dnsRecords } = creation;
    return { id: String(domain.id), outs: domainOutputs(inputs, domain, dnsRecords) };
  },

  async read(
    id: string,
    props: StoredServiceDomain = {},
  ): Promise<ReadAnswer<ServiceDomainInputs, ServiceDomainOutputs>> {
    const client = serviceClient();
    const find = (domains: readonly Domain[]) => domains.find((candidate) => String(candidate.id) === id);
    // Gone only on a definite answer: a list without it, confirmed by a list sent after this read
    // began (a shared list may predate a change, and a paged one may have moved while read).
    const domain =
      find(await client.listDomains({ maxAgeMs: READ_LIST_MAX_AGE_MS })) ??
      find(await client.listDomains({ fresh: true }));
    if (!domain) return { id: undefined, props: {} };
    const inputs = { name: props.name ?? domain.name, adopt: props.adopt ?? false };
    return { id, props: domainOutputs(inputs, domain, props.dnsRecords ?? []), inputs };
  },

  async update(
    _id: string,
    olds: StoredServiceDomain,
    news: ServiceDomainProps,
  ): Promise<Updated<StoredServiceDomain>> {
    // Nothing about a domain changes in place; only `adopt` can differ, and it is kept as given.
    return { outs: { ...withoutStoredProvider(olds), adopt: news.adopt } };
  },

  async delete(id: string, _props?: StoredServiceDomain) {
    try {
      await serviceClient().deleteDomain(Number(id));
    } catch (error) {
      if (!isObjectNotFound(error)) throw error; // already gone: that is what delete wants
    }
  },
};

/** Why no domain was made (or kept), in the words of a Pulumi user: what happened, what to do. */
function creationFailure(name: string, creation: Exclude<DomainCreation, { outcome: "created" }>): Error {
  switch (creation.outcome) {
    case "taken":
      return alreadyExists(name, creation);
    case "answerLost":
      return answerLost(name, creation);
    case "answeredWithoutRecords":
      return new Error(
        `Domain ${name}: the service created it but its answer carried no DNS records, so there is nothing to ` +
          "publish or verify; the domain was deleted again. If this deployment never returns records, create the domain " +
          "by hand and set `adopt: true`, publishing its records yourself.",
      );
  }
}

/** `created 2026-…`, or that the service did not say when. */
function madeWhen(existing: { createdAt: string | null }): string {
  return `created ${existing.createdAt ?? "at an unknown time"}`;
}

/** The domain exists but this call did not make it: say so, and the two ways forward. */
function alreadyExists(
  name: string,
  { existing, error }: Extract<DomainCreation, { outcome: "taken" }>,
): Error {
  return new Error(
    `Domain ${name} already exists on the email service (id ${existing.id}, ${madeWhen(existing)}) ` +
      "and this stack did not create it: another stack or a person may manage it, or an earlier run stopped before recording it. " +
      "Nothing was changed. Either set `adopt: true` to manage it here as it is (the service returns a domain's DNS records only " +
      "when it creates the domain, so its records are then yours to publish), or delete it on the service and run `pulumi up` again.",
    { cause: error },
  );
}

/**
 * The create's answer was lost and a domain of that name exists: this stack's lost create, or
 * another stack's made meanwhile. Nothing tells which, so it was left alone; the user knows.
 */
function answerLost(
  name: string,
  { existing, error }: Extract<DomainCreation, { outcome: "answerLost" }>,
): Error {
  return new Error(
    `Domain ${name}: the service's answer to create was lost, and a domain of that name now exists (id ${existing.id}, ` +
      `${madeWhen(existing)}). It may be the one this run created, or another stack's or person's created meanwhile; ` +
      "nothing tells which, so it was left as it is and this stack does not record it. If it is this stack's (nothing else " +
      "uses the name), delete it on the service and run `pulumi up` again: the domain is created anew with its DNS records, " +
      "which the service returns only when it creates a domain (or set `adopt: true` to keep it, publishing its records " +
      "yourself). If it is someone else's, choose another name.",
    { cause: error },
  );
}

/**
 * The state a domain records, from its inputs and the service's answer.
 * @internal The provider's own helper.
 */
export function domainOutputs(
  inputs: ServiceDomainInputs,
  domain: Domain,
  dnsRecords: DnsRecord[],
): ServiceDomainOutputs {
  return {
    domainId: domain.id,
    uuid: domain.uuid,
    name: inputs.name,
    adopt: inputs.adopt,
    ...checkStatusesOf(domain),
    createdAt: domain.createdAt,
    dnsRecords,
  };
}
