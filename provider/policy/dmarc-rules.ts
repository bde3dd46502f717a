import { DMARC_RECORD_PREFIX } from "../dns/dmarc-args";
import { parseDmarc } from "../dns/dmarc";
import { reportUriProblem } from "../inputs/dmarc-inputs";
import { dmarcDisposition, dmarcPercent, organizationalDomain } from "../receivers/dmarc-evaluation";
import { unquoteTxt } from "../dns/txt";
import { resourceRule, ResourceSubject, stackRule, type StackResource } from "./policy-kit";
import { groupBy, knownString, UNKNOWN } from "./props";
import {
  DomainFacts,
  domainFacts,
  domainLabel,
  domainsOf,
  isDomainsOwnRecord,
  listed,
  recordFacts,
  RECORD_TYPES,
  recordLabel,
  TYPE_TOKENS,
} from "./resources";
import { currentStack, DEFAULT_PRODUCTION_STACKS, notProduction, productionStacksSchema } from "./stage";

/**
 * DMARC posture (RFC 7489): every domain that sends publishes a policy, with aggregate reports
 * going somewhere, its subdomains' policy said, and in production a policy that protects
 * (`quarantine` or `reject`). A policy is read from a `Domain`'s `dmarc` settings or, for one
 * published by hand, from a `cloudflare.DnsRecord` at `_dmarc.<name>` through the package's own
 * DMARC parser (`parseDmarc`).
 */

/** A DMARC policy as the rules judge it, whichever way it was declared. */
interface DmarcSubject {
  /** How messages name it. */
  label: string;
  /** The domain it protects. */
  domain: string | undefined;
  /** `p`, lowercase. */
  policy: string | undefined;
  /** `sp`, lowercase, when said. */
  subdomainPolicy: string | undefined;
  /** `pct`, as receivers read it (100 when not said). */
  percent: number;
  /** `rua`'s URIs. */
  aggregateReports: unknown[];
  /** How to change it: in the `Domain`'s settings, or in the record's content. */
  via: "settings" | "record";
}

const ENFORCING = ["quarantine", "reject"];

/** The resources a DMARC policy is declared by: a `Domain`'s settings, or a record. */
const DMARC_SUBJECT_TYPES = [TYPE_TOKENS.Domain, ...RECORD_TYPES] as const;

/** The DMARC policy a resource declares, or undefined when it declares none (or it is not known yet). */
function dmarcSubject(subject: ResourceSubject<object>): DmarcSubject | undefined {
  if (subject.type === TYPE_TOKENS.Domain) {
    const domain = domainFacts(subject.name, subject.props);
    if (domain?.dmarc === UNKNOWN)
      subject.notApplicable("the Domain's dmarc settings are not known until `pulumi up`");
    if (!domain?.dmarc) return undefined;
    const reports = domain.dmarc.aggregateReports;
    return {
      label: domainLabel(domain),
      domain: domain.name,
      policy: knownString(domain.dmarc.policy),
      subdomainPolicy: knownString(domain.dmarc.subdomainPolicy),
      percent: dmarcPercent(String(domain.dmarc.percent ?? 100)),
      // An address not known yet is an address: only an empty list asks for no reports.
      aggregateReports: Array.isArray(reports)
        ? reports.filter((uri) => typeof uri === "string" || uri === UNKNOWN)
        : [],
      via: "settings",
    };
  }
  // A Domain's own DMARC record is judged through the Domain's settings, once.
  if (isDomainsOwnRecord(subject.parent, subject.name)) return undefined;
  const record = recordFacts(subject);
  if (!record || record.type !== "TXT" || !record.name?.startsWith(`${DMARC_RECORD_PREFIX}.`))
    return undefined;
  if (record.content === UNKNOWN)
    subject.notApplicable("the record's content is not known until `pulumi up`");
  const tags = typeof record.content === "string" ? parseDmarc(unquoteTxt(record.content)) : undefined;
  if (!tags) return undefined;
  return {
    label: recordLabel(record),
    domain: record.name.slice(DMARC_RECORD_PREFIX.length + 1),
    policy: tags.p?.toLowerCase(),
    subdomainPolicy: tags.sp?.toLowerCase(),
    percent: dmarcPercent(tags.pct),
    aggregateReports: (tags.rua ?? "")
      .split(",")
      .map((uri) => uri.trim())
      .filter((uri) => uri !== ""),
    via: "record",
  };
}

/** `dmarc.policy` or `p=` in the record's content, as the subject is changed. */
function where(dmarc: DmarcSubject, setting: "policy" | "subdomainPolicy" | "aggregateReports"): string {
  const tags = { policy: "p", subdomainPolicy: "sp", aggregateReports: "rua" };
  return dmarc.via === "settings" ? `dmarc.${setting}` : `the record's ${tags[setting]}= tag`;
}

/** Who publishes a DMARC policy at a name: a Domain (its `dmarc`), or a record declared by hand. */
interface DmarcPublisher {
  /** The name it protects (`_dmarc.` taken off). */
  name: string;
  label: string;
  urn: string;
}

/** The DMARC policies the stack publishes: each Domain's `dmarc`, and every DMARC record by hand. */
function dmarcPublishers(resources: StackResource[], domains: Map<string, DomainFacts>): DmarcPublisher[] {
  return resources.flatMap((resource): DmarcPublisher[] => {
    const domain = domains.get(resource.urn);
    if (domain) {
      return domain.name && domain.dmarc && domain.dmarc !== UNKNOWN
        ? [{ name: domain.name, label: domainLabel(domain), urn: resource.urn }]
        : [];
    }
    // A Domain's own record is its `dmarc`, counted above.
    if (isDomainsOwnRecord(resource.parent?.urn, resource.name)) return [];
    const record = recordFacts(resource);
    if (record?.type !== "TXT" || !record.name?.startsWith(`${DMARC_RECORD_PREFIX}.`)) return [];
    if (typeof record.content === "string" && parseDmarc(unquoteTxt(record.content)) === undefined) return [];
    const name = record.name.slice(DMARC_RECORD_PREFIX.length + 1);
    return [{ name, label: recordLabel(record), urn: resource.urn }];
  });
}

/**
 * The names whose DMARC policy governs `name`'s mail: its own, else its organizational domain's
 * (RFC 7489 §6.6.3, receivers' model): never a parent in between (`eu.example.com` for
 * `mail.eu.example.com` governs nothing of it).
 */
function governingNames(name: string): string[] {
  return [...new Set([name.toLowerCase(), organizationalDomain(name)])];
}

/**
 * `email-dmarc-published` (stack, advisory): every Domain publishing in Cloudflare has a DMARC
 * policy in the stack, at its name or its organizational domain's (where receivers look, RFC 7489
 * §6.6.3), and no name has two (receivers then apply none).
 */
export const dmarcPublished = stackRule({
  name: "email-dmarc-published",
  description: "Every sending domain publishes one DMARC policy.",
  enforcementLevel: "advisory",
  remediationSteps:
    'Give the Domain `dmarc: { policy: "none", aggregateReports: ["mailto:…"] }`, read the reports, then raise the policy.',
  validate(resources, _config, report) {
    const domains = domainsOf(resources);
    const publishers = dmarcPublishers(resources, domains);
    const atName = groupBy(publishers, (publisher) => publisher.name);
    for (const [urn, domain] of domains) {
      // DNS hosted elsewhere is published elsewhere; settings not known yet are judged once they are.
      if (!domain.cloudflare || domain.dmarc || !domain.name) continue;
      if (governingNames(domain.name).some((name) => atName.has(name))) continue;
      report(
        `${domainLabel(domain)} declares no DMARC policy in this stack, at its name or its organizational domain's, so receivers ` +
          'have no instruction for mail that fails SPF and DKIM in its name. Add dmarc: { policy: "none", ' +
          `aggregateReports: ["mailto:dmarc@${domain.name}"] } to the Domain, read the reports, then raise the ` +
          'policy to "quarantine" or "reject".',
        urn,
      );
    }
    for (const publisher of publishers) {
      const others = atName.get(publisher.name)!.filter((other) => other !== publisher);
      if (others.length === 0) continue;
      report(
        `${publisher.label} publishes a DMARC policy at _dmarc.${publisher.name}, and so does ` +
          `${listed(others.map((other) => other.label))}. With more than one, receivers apply none ` +
          "(RFC 7489 §6.6.3): keep one.",
        publisher.urn,
      );
    }
  },
});

/**
 * `email-dmarc-enforced` (mandatory; it applies only in production stacks): there, `p` and `sp` are
 * "quarantine" or "reject", and sampled (`pct`) so that receivers apply them to some mail.
 */
export const dmarcEnforced = resourceRule<{ productionStacks: string[] }>({
  name: "email-dmarc-enforced",
  description:
    'In production, DMARC asks receivers to act: p and sp are "quarantine" or "reject", at a pct above 0.',
  enforcementLevel: "mandatory",
  appliesTo: DMARC_SUBJECT_TYPES,
  config: { productionStacks: productionStacksSchema(DEFAULT_PRODUCTION_STACKS) },
  validate(subject, report) {
    const dmarc = dmarcSubject(subject);
    if (!dmarc) return;
    const skip = notProduction(subject.config.productionStacks);
    if (skip) subject.notApplicable(skip);
    const stack = `in production stack "${currentStack()}"`;
    if (dmarc.policy !== undefined && !ENFORCING.includes(dmarc.policy)) {
      report(
        `${dmarc.label} publishes DMARC p=${dmarc.policy} ${stack}: receivers only report mail that fails DMARC. ` +
          `Set ${where(dmarc, "policy")} to "quarantine" or "reject" once the aggregate reports show only your own senders.`,
      );
    }
    const subdomains = dmarc.subdomainPolicy ?? dmarc.policy;
    if (subdomains !== undefined && subdomains !== dmarc.policy && !ENFORCING.includes(subdomains)) {
      report(
        `${dmarc.label} publishes DMARC sp=${subdomains} ${stack}: mail in its subdomains' names that fails ` +
          `DMARC is only reported. Set ${where(dmarc, "subdomainPolicy")} to "quarantine" or "reject".`,
      );
    }
    // An enforcing policy sampled at pct=0: every message gets the next-lower policy (RFC 7489 §6.6.4).
    const sampled = [...new Set([dmarc.policy, subdomains])].filter(
      (policy): policy is "quarantine" | "reject" =>
        ENFORCING.includes(policy ?? "") &&
        dmarcDisposition(policy as "quarantine" | "reject", dmarc.percent).applied === "none",
    );
    for (const policy of sampled) {
      report(
        `${dmarc.label} publishes DMARC ${policy === dmarc.policy ? "p" : "sp"}=${policy} with pct=${dmarc.percent} ${stack}: ` +
          "receivers apply it to none of the failing mail, which gets p=none instead (RFC 7489 §6.6.4), so nothing is " +
          `enforced. Set ${dmarc.via === "settings" ? "dmarc.percent" : "the record's pct= tag"} to 100 (or leave it out).`,
      );
    }
  },
});

/**
 * `email-dmarc-subdomain-policy` (advisory): a DMARC policy at `p=none` says what applies to
 * subdomains (`sp`); at `quarantine` or `reject` they get `p` already.
 */
export const dmarcSubdomainPolicy = resourceRule({
  name: "email-dmarc-subdomain-policy",
  description: "A DMARC policy that does not enforce (p=none) says what applies to subdomains (sp).",
  enforcementLevel: "advisory",
  appliesTo: DMARC_SUBJECT_TYPES,
  validate(subject, report) {
    const dmarc = dmarcSubject(subject);
    // Without sp, subdomains get p (RFC 7489 §6.3): at quarantine or reject that is already said.
    if (!dmarc || dmarc.subdomainPolicy !== undefined || ENFORCING.includes(dmarc.policy ?? "")) return;
    report(
      `${dmarc.label} does not say the DMARC policy of its subdomains (sp), so receivers apply ` +
        `p=${dmarc.policy ?? "?"} to them too, whether or not they send mail. Say it: set ` +
        `${where(dmarc, "subdomainPolicy")} (for example "reject" when no subdomain sends mail).`,
    );
  },
});

/** `email-dmarc-aggregate-reports` (advisory): the DMARC policy asks for aggregate reports (`rua`). */
export const dmarcAggregateReports = resourceRule({
  name: "email-dmarc-aggregate-reports",
  description: "A DMARC policy sends aggregate reports somewhere (rua).",
  enforcementLevel: "advisory",
  appliesTo: DMARC_SUBJECT_TYPES,
  validate(subject, report) {
    const dmarc = dmarcSubject(subject);
    if (!dmarc) return;
    // Receivers send aggregate reports by mail only (RFC 7489 §6.2): another scheme gets none.
    const refused = dmarc.aggregateReports.flatMap((uri) => {
      const problem = typeof uri === "string" ? reportUriProblem(uri) : undefined;
      return problem ? [`"${uri}" ${problem}`] : [];
    });
    if (refused.length > 0) {
      report(
        `${dmarc.label} asks for DMARC aggregate reports (rua) at a URI receivers do not send to: ${listed(refused)}. ` +
          `Set ${where(dmarc, "aggregateReports")} to mailto: URIs.`,
      );
    }
    if (dmarc.aggregateReports.length > 0) return;
    const address = `mailto:dmarc@${dmarc.domain ?? "example.com"}`;
    report(
      `${dmarc.label} asks for no DMARC aggregate reports (rua), so nobody sees who sends mail in the ` +
        `domain's name or whether it passes. Set ${where(dmarc, "aggregateReports")} ` +
        `(for example ${dmarc.via === "settings" ? `["${address}"]` : address}).`,
    );
  },
});
