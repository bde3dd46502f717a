/**
 * The providers' errors for a create whose answer was lost while an object of its name now exists
 * (provider/dynamic/domain-provider.ts, route-provider.ts), word for word: what a user reads.
 */

/** The Domain provider's. */
export const domainAnswerLost = (name: string, id: number, createdAt: string | null) =>
  `Domain ${name}: the service's answer to create was lost, and a domain of that name now exists (id ${id}, ` +
  `created ${createdAt ?? "at an unknown time"}). It may be the one this run created, or another stack's or person's created meanwhile; ` +
  "nothing tells which, so it was left as it is and this stack does not record it. If it is this stack's (nothing else " +
  "uses the name), delete it on the service and run `pulumi up` again: the domain is created anew with its DNS records, " +
  "which the service returns only when it creates a domain (or set `adopt: true` to keep it, publishing its records " +
  "yourself). If it is someone else's, choose another name.";

/** The Route provider's. */
export const routeAnswerLost = (name: string, domainId: number, id: number) =>
  `Route "${name}" on domain ${domainId}: the service's answer to create was lost, and a route of that name on the ` +
  `domain now exists (id ${id}). It may be the one this run created, or another stack's or person's created ` +
  "meanwhile; nothing tells which, so it was left as it is and this stack does not record it. If it is this stack's " +
  "(nothing else declares it), set `adopt: true` to manage it here, or delete it on the service, and run `pulumi up` " +
  "again. If it is someone else's, choose another name.";
