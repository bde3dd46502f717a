import * as pulumi from "@pulumi/pulumi";
import {
  CHECK_STATUS_FIELDS,
  CheckStatuses,
  checkStatusesOf,
  Domain as ServiceDomainRecord,
  findDomain,
} from "../client";
import { domainNameProblem } from "../inputs/names";
import { programClient } from "../dynamic/connection";
import { CONNECTION_SETTINGS } from "../dynamic/connection-settings";

/**
 * `getDomain` / `getDomainOutput`: a read-only lookup, by name, of a domain another stack (or a
 * person) manages, for stacks that only need its id, e.g. for `Route`s. It runs in the program,
 * in `pulumi preview` as in `pulumi up` (it only reads), registers nothing and writes nothing, with
 * the connection settings the providers use: stack config, else the environment.
 */

export interface GetDomainArgs {
  /**
   * The domain's name, as the stack that manages it gave it: lowercase, at least two labels,
   * international names in punycode. Checked with `Domain`'s rules before anything is sent.
   * @example "mail.example.com"
   */
  name: string;
}

/** What {@link getDomainOutput} takes: the name of a domain another stack manages. */
export interface GetDomainOutputArgs {
  /**
   * The domain's name, as the stack that manages it gave it: lowercase, at least two labels,
   * international names in punycode. Checked with `Domain`'s rules before anything is sent.
   * @example "mail.example.com"
   */
  name: pulumi.Input<string>;
}

/**
 * A domain as the service lists it, at the time of the lookup. The statuses are those of the
 * service's last check of the domain, which the managing stack's verification (or anyone's
 * `domains/check`) makes; `null` before the first check. The lookup reads them; it never checks.
 */
export interface GetDomainResult extends CheckStatuses {
  /** The service's numeric id: what `Route`'s `domainId` takes. */
  domainId: number;
  /** The service's uuid of the domain (empty when the service gives none). */
  uuid: string;
  /** The name as the service holds it. */
  name: string;
  /** When the service made the domain, as it says it; `null` when it does not. */
  createdAt: string | null;
  /**
   * True when all four statuses (SPF, DKIM, MX, return path) are `OK`: what a `Domain` with the
   * default verification waits for. A stack that verifies fewer checks may consider the domain
   * verified while this is false: read the statuses you need instead.
   */
  verified: boolean;
}

/**
 * Finds a domain on the email service by name, without managing it: the stack that manages it
 * (creates, verifies, publishes its records) stays the only one writing it. Fails when the name
 * breaks `Domain`'s rules (nothing is sent), when the service holds no domain of that name, or
 * when the service cannot be read.
 *
 * There is no options argument: the lookup uses this stack's own connection settings, the ones its
 * `Route`s are created with, since a domain's id means something only on the server whose key
 * found it.
 *
 * @example
 * const mail = await getDomain({ name: "mail.example.com" });
 * new Route("support", { name: "support", domainId: mail.domainId, endpointId: 1 });
 *
 * @group Resources
 */
export async function getDomain(args: GetDomainArgs): Promise<GetDomainResult> {
  const name = checkedName(args?.name);
  // The program's config, read raw: `pulumi.Config.get` of a secret key may warn, and
  // `getSecret` would make every result secret, though only the request header holds the key.
  const { client, baseUrl } = programClient((key) => pulumi.runtime.getConfig(key));
  let domains: readonly ServiceDomainRecord[];
  try {
    // Fresh: an answer to a request sent after this call began, so a domain the other stack has
    // just made is seen (lookups made together share it).
    domains = await client.listDomains({ fresh: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // The client's first line says what is wrong and what to do (a refused key, a base URL that
    // is not the service): it stays first, with what getDomain was doing after it.
    const [first, ...rest] = reason.split("\n");
    throw new Error(
      [
        first,
        `getDomain: could not read the domains of the email service at ${baseUrl} to find "${name}".`,
        ...rest,
      ].join("\n"),
      { cause: error },
    );
  }
  const found = findDomain(domains, name);
  if (!found) throw new Error(notFoundMessage(name, baseUrl));
  return getDomainResult(found);
}

/**
 * `getDomain` for an input name, as an output: unknown while the name is (in a preview), secret if
 * the name is. Use its `domainId` as `Route`'s `domainId`.
 *
 * @example
 * const mail = getDomainOutput({ name: config.require("mailDomain") });
 * new Route("support", { name: "support", domainId: mail.domainId, endpointId: 1 });
 *
 * @group Resources
 */
export function getDomainOutput(args: GetDomainOutputArgs): pulumi.Output<GetDomainResult> {
  return pulumi.output(args?.name).apply((name) => getDomain({ name }));
}

function getDomainResult(domain: ServiceDomainRecord): GetDomainResult {
  const statuses = CHECK_STATUS_FIELDS.map((field) => domain[field]);
  return {
    domainId: domain.id,
    uuid: domain.uuid,
    name: domain.name,
    ...checkStatusesOf(domain),
    createdAt: domain.createdAt,
    verified: statuses.every((status) => status === "OK"),
  };
}

/** The name, or an error naming `name` and what is wrong with it. */
function checkedName(name: unknown): string {
  const problem = typeof name === "string" ? domainNameProblem(name) : "must be a string, the domain's name";
  if (problem === undefined) return name as string;
  throw new Error(`getDomain({ name: ${shown(name)} }): name: ${problem}. Nothing was sent.`);
}

function shown(value: unknown): string {
  if (typeof value !== "string") return typeof value === "object" && value !== null ? "{…}" : String(value);
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

function notFoundMessage(name: string, baseUrl: string): string {
  const { baseUrl: url, apiKey: key } = CONNECTION_SETTINGS;
  return (
    `Domain "${name}" was not found on the email service at ${baseUrl} (among the domains of the server ` +
    `this stack's API key belongs to). getDomain only reads a domain another stack manages: check that ` +
    `the stack that manages it has created it (\`pulumi up\` there) under exactly this name, and that this ` +
    `stack's \`${url.config}\` and \`${key.config}\` (or ${url.env} and ${key.env}) point at the same ` +
    `server as that stack's: a key of another server sees other domains.`
  );
}
