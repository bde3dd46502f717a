/**
 * Which records a `Domain` publishes, as typed values: the names known from the domain's name
 * before the service has answered (what the zone is checked at first), and the records to declare
 * as child resources, each with the resource name it keeps from run to run.
 */
import * as pulumi from "@pulumi/pulumi";
import type { DnsRecord, DnsRecordPurpose } from "../../client";
import { cloudflareContent, dmarcRecordName, PlannedRecord, recordResourceName } from "../../dns";

/** The record types a Domain publishes, and the only ones a claimed record can hold. */
export type PublishedType = "TXT" | "CNAME" | "MX";

/** One record the Domain declares as a child resource. */
export interface DomainRecord {
  /** The child's name, the same from run to run: `<component>-spf`, `<component>-mx-0`. */
  resourceName: string;
  /** Which check it serves: the service's purposes, and `dmarc`. */
  purpose: DnsRecordPurpose;
  /** Its type, known before its fields (it decides the resource's shape), uppercase. */
  type: string;
  /** Its fields as the service gives them (TXT unquoted), once known. */
  fields: pulumi.Output<DnsRecord>;
}

/** What a Domain publishes besides the service's own records, and what it leaves out. */
export interface PublishOptions {
  /** The domain's name (for the names known before the service answers). */
  domainName: pulumi.Input<string>;
  /** Declare SPF, DKIM and return path at once (false for an adopted domain, whose records may be unknown). */
  upFront: boolean;
  /** Publish the service's MX records. */
  mx: boolean;
  /** The DMARC record's content (unquoted), to publish at `_dmarc.<name>`. */
  dmarc?: string;
}

/** Records every service publishes exactly once, known by purpose before the domain exists. */
export const SINGLE_RECORDS = [
  { purpose: "spf", type: "TXT" },
  { purpose: "dkim", type: "TXT" },
  { purpose: "return_path", type: "CNAME" },
] as const;

/**
 * The records whose names the domain's name gives before the service has answered (SPF and MX at
 * the name, the return path at the installation's prefix, DMARC with its content), to check the
 * zone at before the domain is made. DKIM's name is the service's selector: not known yet.
 */
export function recordsKnownUpFront(
  domainName: string,
  returnPathPrefix: string,
  options: Pick<PublishOptions, "mx" | "dmarc">,
): PlannedRecord[] {
  return [
    { purpose: "spf", name: domainName, type: "TXT" },
    { purpose: "return_path", name: `${returnPathPrefix}.${domainName}`, type: "CNAME" },
    ...(options.mx ? [{ purpose: "mx", name: domainName, type: "MX" } as const] : []),
    ...(options.dmarc !== undefined
      ? [
          {
            purpose: "dmarc",
            name: dmarcRecordName(domainName),
            type: "TXT",
            content: cloudflareContent({ purpose: "dmarc", type: "TXT", name: "", content: options.dmarc }),
          } as const,
        ]
      : []),
  ];
}

/**
 * SPF, DKIM and return path, declared before the service has answered, so that a preview shows
 * them; their fields come from its answer, and an answer without one (an adopted domain) fails.
 */
export function singleRecords(component: string, answer: pulumi.Output<DnsRecord[]>): DomainRecord[] {
  return SINGLE_RECORDS.map(({ purpose, type }) => ({
    resourceName: recordResourceName(component, purpose),
    purpose,
    type,
    fields: answer.apply((records) => {
      const found = records.find((candidate) => candidate.purpose === purpose);
      if (found) return found;
      throw new Error(
        `Domain ${component}: no ${purpose} record is known for this domain. The service returns a domain's records ` +
          "only when it creates the domain, so an adopted domain has none: keep `adopt: true`, or delete the " +
          "domain on the service so the stack creates it again.",
      );
    }),
  }));
}

/** The DMARC record at `_dmarc.<domainName>`, whose content the program gives. */
export function dmarcRecord(
  component: string,
  domainName: pulumi.Input<string>,
  content: string,
): DomainRecord {
  return {
    resourceName: recordResourceName(component, "dmarc"),
    purpose: "dmarc",
    type: "TXT",
    fields: pulumi
      .output(domainName)
      .apply((name) => ({ purpose: "dmarc", type: "TXT", name: dmarcRecordName(name), content })),
  };
}

/**
 * The service's records of purposes not in `skipped`, named by purpose and ordered by content so
 * that names stay the same from run to run (`<component>-mx-0`, `<component>-mx-1` …). Pure.
 */
export function laterRecords(
  component: string,
  answer: readonly DnsRecord[],
  skipped: readonly string[],
): { resourceName: string; record: DnsRecord }[] {
  const byPurpose = new Map<string, DnsRecord[]>();
  for (const record of answer.filter((candidate) => !skipped.includes(candidate.purpose))) {
    byPurpose.set(record.purpose, [...(byPurpose.get(record.purpose) ?? []), record]);
  }
  return [...byPurpose].flatMap(([purpose, group]) =>
    [...group]
      .sort((a, b) => a.content.localeCompare(b.content))
      .map((record, index) => ({
        // MX records are always numbered, so a second mail host does not rename the first.
        resourceName: recordResourceName(
          component,
          purpose,
          purpose === "mx" || group.length > 1 ? index : undefined,
        ),
        record,
      })),
  );
}
