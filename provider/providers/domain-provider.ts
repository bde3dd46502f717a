import type * as pulumi from "@pulumi/pulumi";
import {
  CreatedDomain,
  DnsRecord,
  Domain,
  EmailApiError,
  ExistingObject,
  isEmailApiError,
  isObjectNotFound,
  sameDomainName,
} from "../client";
import { checkDomainInputs, DomainInputs } from "../inputs";
import { READ_LIST_MAX_AGE_MS, rememberConfig, serviceClient } from "./connection";
import { diffProperties } from "./diff";
import { storedProviderOutdated } from "./loader";

/** What a domain resource records in state, plus its inputs (later versions must keep reading it). */
export interface DomainOutputs {
  domainId: number;
  uuid: string;
  name: string;
  adopt: boolean;
  spfStatus: string | null;
  dkimStatus: string | null;
  mxStatus: string | null;
  returnPathStatus: string | null;
  createdAt: string | null;
  /** The records to publish; the service returns them only when the domain is created. */
  dnsRecords: DnsRecord[];
}

/** Creates tried when the answers carrying the records are lost. */
const MAX_CREATES = 3;

/**
 * The service's sending domain. There is no update call: a new name means a new domain, deleted
 * first because names are unique. Records come only from the create answer, so they are kept in
 * state and carried through refreshes.
 */
export const domainProvider: pulumi.dynamic.ResourceProvider = {
  async configure(request) {
    rememberConfig(request);
  },

  async check(_olds, news) {
    return checkDomainInputs(news);
  },

  async diff(_id, olds, news) {
    // `adopt` only matters when the domain is created, so changing it changes nothing.
    const { changed, replaces } = diffProperties(olds, news, {
      replace: ["name"],
      update: [],
      same: (_property, a, b) => typeof a === "string" && typeof b === "string" && sameDomainName(a, b),
    });
    return {
      changes: changed.length > 0 || storedProviderOutdated(olds, news),
      replaces,
      deleteBeforeReplace: replaces.length > 0,
    };
  },

  async create(props) {
    const inputs = props as DomainInputs;
    const client = serviceClient();
    if (inputs.adopt) {
      const existing = (await client.listDomains()).find((domain) =>
        sameDomainName(domain.name, inputs.name),
      );
      if (existing) return { id: String(existing.id), outs: domainOutputs(inputs, existing, []) };
    }
    for (let attempt = 1; ; attempt++) {
      let created: CreatedDomain;
      try {
        created = await client.createDomain(inputs.name);
      } catch (error) {
        if (!isAlreadyAdded(error)) throw error;
        // Not made by this call (the client proves that before it claims anything): say whose it
        // may be and change nothing.
        const existing =
          error.existing ??
          (await client.listDomains()).find((domain) => sameDomainName(domain.name, inputs.name));
        if (!existing) throw error;
        throw alreadyExists(inputs.name, existing, error, attempt > 1);
      }
      if (created.dnsRecords) {
        return {
          id: String(created.domain.id),
          outs: domainOutputs(inputs, created.domain, created.dnsRecords),
        };
      }
      const lost = created.domain;
      if (!created.recovered) {
        // Answered, but without records: a deployment that does not return them.
        await client.deleteDomain(lost.id);
        throw new Error(
          `Domain ${inputs.name}: the service created it but its answer carried no DNS records, so there is nothing to ` +
            "publish or verify; the domain was deleted again. If this deployment never returns records, create the domain " +
            "by hand and set `adopt: true`, publishing its records yourself.",
        );
      }
      // The answer carrying the records was lost. The client proved this call made the domain
      // (the name was free just before), so delete it and make it again: the create's answer is
      // the only place the records appear. A domain with routes is not one this call just made
      // (someone created the name while this call ran): it is left alone. Give up after a few
      // tries, leaving nothing behind.
      const routes = (await client.listRoutes({ fresh: true })).filter((route) => route.domainId === lost.id);
      if (routes.length > 0) {
        throw new Error(
          `Domain ${inputs.name}: the service's answer to create was lost, and the domain of that name found afterwards ` +
            `(id ${lost.id}, created ${lost.createdAt ?? "at an unknown time"}) already has ${routes.length} route(s), so it ` +
            "is not the one this call made: another stack or person created the same name while this ran. Nothing was " +
            "deleted. Set `adopt: true` to manage it here, or delete it on the service, and run `pulumi up` again.",
        );
      }
      await client.deleteDomain(lost.id).catch((error: Error) => {
        throw new Error(
          `Domain ${inputs.name}: the service's answer to create was lost, and deleting the domain it made ` +
            `(id ${lost.id}) to create it again failed: ${error.message} Delete it on the service and run \`pulumi up\` again.`,
          { cause: error },
        );
      });
      if (attempt === MAX_CREATES) {
        throw new Error(
          `Domain ${inputs.name}: the service's answer to create was lost ${MAX_CREATES} times in a row, so its DNS records ` +
            "are unknown; the domain was deleted again. Run `pulumi up` again.",
        );
      }
    }
  },

  async read(id, props) {
    const state = props as DomainOutputs;
    const client = serviceClient();
    const find = (domains: readonly Domain[]) => domains.find((candidate) => String(candidate.id) === id);
    // Gone only on a definite answer: a list without it, confirmed by a list sent after this read
    // began (a shared list may predate a change, and a paged one may have moved while read).
    const domain =
      find(await client.listDomains({ maxAgeMs: READ_LIST_MAX_AGE_MS })) ??
      find(await client.listDomains({ fresh: true }));
    if (!domain) return { id: undefined, props: {} };
    const inputs = { name: state.name ?? domain.name, adopt: state.adopt ?? false };
    return { id, props: domainOutputs(inputs, domain, state.dnsRecords ?? []), inputs };
  },

  async update(_id, olds, news) {
    // Nothing about a domain changes in place; only `adopt` can differ, and it is kept as given.
    const state = olds as DomainOutputs;
    return { outs: { ...withoutProvider(state), adopt: (news as DomainInputs).adopt } };
  },

  async delete(id) {
    try {
      await serviceClient().deleteDomain(Number(id));
    } catch (error) {
      if (!isObjectNotFound(error)) throw error; // already gone: that is what delete wants
    }
  },
};

/** The domain exists but this call did not make it: say so, and the two ways forward. */
function alreadyExists(name: string, existing: ExistingObject, cause: unknown, lostBefore: boolean): Error {
  // After this run deleted a domain it made, its own earlier create may land late; nothing tells
  // that apart from another party's create, so it is only mentioned.
  const late = lostBefore
    ? " (This run's own earlier create, whose answer was lost, may have landed late: if no one else uses the name, delete it.)"
    : "";
  return new Error(
    `Domain ${name} already exists on the email service (id ${existing.id}, created ${existing.createdAt ?? "at an unknown time"}) ` +
      "and this stack did not create it: another stack or a person may manage it, or an earlier run stopped before recording it. " +
      "Nothing was changed. Either set `adopt: true` to manage it here as it is (the service returns a domain's DNS records only " +
      "when it creates the domain, so its records are then yours to publish), or delete it on the service and run `pulumi up` again." +
      late,
    { cause },
  );
}

export function domainOutputs(inputs: DomainInputs, domain: Domain, dnsRecords: DnsRecord[]): DomainOutputs {
  return {
    domainId: domain.id,
    uuid: domain.uuid,
    name: inputs.name,
    adopt: inputs.adopt,
    spfStatus: domain.spfStatus,
    dkimStatus: domain.dkimStatus,
    mxStatus: domain.mxStatus,
    returnPathStatus: domain.returnPathStatus,
    createdAt: domain.createdAt,
    dnsRecords,
  };
}

/** Postal refuses a duplicate name with "Name is already added"; forks answer a conflict. */
function isAlreadyAdded(error: unknown): error is EmailApiError {
  return (
    isEmailApiError(error) &&
    (error.kind === "conflict" || (error.kind === "validation" && /already/i.test(error.serviceMessage)))
  );
}

export function withoutProvider<T extends object>(state: T): T {
  const copy = { ...state } as Record<string, unknown>;
  delete copy.__provider;
  return copy as T;
}
