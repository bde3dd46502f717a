import { randomUUID } from "node:crypto";
import { MailDnsConfig } from "../config";
import { CheckStatus, DomainRecord, ServerRecord } from "../store/state";
import { Store } from "../store/store";
import { ActionResult, ServerActionRequest } from "./context";
import { generateDkimKey, dkimRecordValue } from "./dkim";
import { DnsCheckResult, evaluateDnsCheck } from "./dns-check";
import { lookupDomainAnswers } from "./dns-lookup";
import { DnsRecordJson, dnsRecordsFor, domainHosts } from "./dns-records";
import { ApiError } from "./errors";
import { notFoundTexts, validationTexts } from "./messages";
import { requiredInteger, requiredString, sameId } from "./params";
import { alphabets, uniqueRandomString } from "./random";
import { removeWhere } from "./store-ops";
import { Validation, assertFitsColumn, sameText } from "./validation";

/** A domain as the service answers it (the spec's Domain, §2.2). */
export interface DomainJson {
  /** Numeric id. */
  id: number;
  /** Opaque id. */
  uuid: string;
  /** The domain name. */
  name: string;
  /** Each status is null until the first check (`domains/check`). */
  spf_status: CheckStatus | null;
  /** The DKIM check's status. */
  dkim_status: CheckStatus | null;
  /** The MX check's status. */
  mx_status: CheckStatus | null;
  /** The return-path check's status. */
  return_path_status: CheckStatus | null;
  /** When it was created (ISO 8601). */
  created_at: string;
}

/** A domain as `domains/create` answers it: with the records to publish. */
export interface CreatedDomainJson extends DomainJson {
  /** The records to publish for it, in the order of Postal's setup page. */
  dns_records: DnsRecordJson[];
}

/** The Domain of the spec (§2.2): statuses are null until the first check. */
export function domainJson(domain: DomainRecord): DomainJson {
  return {
    id: domain.id,
    uuid: domain.uuid,
    name: domain.name,
    spf_status: domain.spfStatus,
    dkim_status: domain.dkimStatus,
    mx_status: domain.mxStatus,
    return_path_status: domain.returnPathStatus,
    created_at: domain.createdAt,
  };
}

export function serverDomains(store: Store, server: ServerRecord): DomainRecord[] {
  return store.state.domains.filter((domain) => domain.serverId === server.id);
}

function findDomain({ store, server, params }: ServerActionRequest): DomainRecord {
  const id = requiredInteger(params, "id");
  const domain = serverDomains(store, server).find((candidate) => sameId(candidate.id, id));
  if (!domain) throw new ApiError("DomainNotFound", { message: notFoundTexts.domain(id) });
  return domain;
}

export function listDomains({ store, server }: ServerActionRequest): ActionResult {
  const domains = serverDomains(store, server);
  return { data: domains.map(domainJson), effect: { listed: domains.length } };
}

/**
 * Postal's Domain validations: lower-case name only, unique case-insensitively per server.
 * Domains added through the API count as verified (an admin adds them), so routes may use them.
 * `domains/create` and the emulator's seeding (`emulator.emailApi.addDomain`) both go through it.
 */
export async function insertDomain(request: ServerActionRequest): Promise<DomainRecord> {
  const { store, server, params, dns } = request;
  const name = requiredString(params, "name");

  const validation = new Validation();
  if (!/^[a-z0-9\-.]*$/.test(name)) validation.add("Name", validationTexts.invalid);
  if (serverDomains(store, server).some((domain) => sameText(domain.name, name))) {
    validation.add("Name", validationTexts.domainAlreadyAdded);
  }
  validation.throwIfFailed();
  assertFitsColumn("name", name);

  const key = await generateDkimKey(dns.dkimKeyBits);
  // Checked again after the await: a concurrent create of the same name may have won meanwhile.
  if (serverDomains(store, server).some((domain) => sameText(domain.name, name))) {
    const late = new Validation();
    late.add("Name", validationTexts.domainAlreadyAdded);
    late.throwIfFailed();
  }

  const domain: DomainRecord = {
    id: store.nextId("domain"),
    uuid: randomUUID(),
    serverId: server.id,
    name,
    // Unique across all domains, as Postal's `random_string ... unique: true`.
    dkimIdentifierString: uniqueRandomString(alphabets.upperLetters, 6, (candidate) =>
      store.state.domains.some((other) => other.dkimIdentifierString === candidate),
    ),
    dkimPublicKey: key.publicKey,
    dkimPrivateKeyPem: key.privateKeyPem,
    spfStatus: null,
    spfError: null,
    dkimStatus: null,
    dkimError: null,
    mxStatus: null,
    mxError: null,
    returnPathStatus: null,
    returnPathError: null,
    dnsCheckedAt: null,
    createdAt: new Date().toISOString(),
  };
  store.state.domains.push(domain);
  store.changed();
  return domain;
}

/** A domain with the records to publish, as `domains/create` answers it. */
export function createdDomainJson(domain: DomainRecord, dns: MailDnsConfig): CreatedDomainJson {
  return { ...domainJson(domain), dns_records: dnsRecordsFor(domain, dns) };
}

export async function createDomain(request: ServerActionRequest): Promise<ActionResult> {
  const domain = await insertDomain(request);
  return {
    data: createdDomainJson(domain, request.dns),
    effect: { created: { kind: "domain", id: domain.id, name: domain.name } },
  };
}

/**
 * Runs the DNS check against the emulator's DNS server and stores the outcome on the domain
 * (`domains/check`, and the emulator's seeding of a verified domain).
 */
export async function runDomainCheck(
  request: ServerActionRequest,
): Promise<{ domain: DomainRecord; result: DnsCheckResult }> {
  const { store, dns, resolver } = request;
  const domain = findDomain(request);
  const hosts = domainHosts(domain, dns);
  const answers = await lookupDomainAnswers(resolver(), hosts);
  const result = evaluateDnsCheck(
    {
      domain: domain.name,
      spfInclude: dns.spfInclude,
      dkimHost: hosts.dkim,
      dkimRecord: dkimRecordValue(domain.dkimPublicKey),
      mxRecords: dns.mxRecords,
      returnPathHost: hosts.returnPath,
      returnPathDomain: dns.returnPathDomain,
    },
    answers,
  );
  // The domain may have been deleted while DNS answered; only a live record is updated.
  if (store.state.domains.includes(domain)) {
    Object.assign(domain, result, { dnsCheckedAt: new Date().toISOString() });
    store.changed();
  }
  return { domain, result };
}

export async function checkDomain(request: ServerActionRequest): Promise<ActionResult> {
  const { domain, result } = await runDomainCheck(request);
  return {
    data: {
      spf_status: result.spfStatus,
      spf_error: result.spfError,
      dkim_status: result.dkimStatus,
      dkim_error: result.dkimError,
      mx_status: result.mxStatus,
      mx_error: result.mxError,
      return_path_status: result.returnPathStatus,
      return_path_error: result.returnPathError,
    },
    effect: { updated: { kind: "domain", id: domain.id } },
  };
}

/** Deleting a domain destroys its routes (`has_many :routes, dependent: :destroy`). */
export function deleteDomain(request: ServerActionRequest): ActionResult {
  const { store } = request;
  const domain = findDomain(request);
  removeWhere(store.state.routes, (route) => route.domainId === domain.id);
  removeWhere(store.state.domains, (candidate) => candidate === domain);
  store.changed();
  return {
    data: { id: domain.id, name: domain.name },
    effect: { deleted: { kind: "domain", id: domain.id } },
  };
}
