import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import type { ExistingRecord } from "../../dns/zone-records";
import { runsUnderMocks } from "../unit-test-mocks";
import { coveringDomain, existingRecord, named, normalName, uniqueById } from "./zone-read-results";

/**
 * What a program run asks of its Cloudflare zones, answered from as few reads as the zones' pages
 * allow. Every `Domain` of a run registers its name on its zone; the first question about a zone
 * (after the registrations of that turn of the event loop are in) reads it, and every later
 * question of the run — the names known up front, the DKIM names learned once the service answers,
 * the checks of each declared record — is answered from what was read (a write's check may have
 * it confirmed: `confirmedAt`).
 *
 * How a zone is read, through the Cloudflare provider's own `getDnsRecords` (so with the token and
 * base URL the records are published with), which reads 100 records a page and stops at an empty
 * page or at `maxItems` (see the kit's `testing/cloudflare-mocks.ts` for the citation):
 *
 * 1. **The whole zone**, when that costs no more pages than reading each of the run's domains
 *    alone would (two pages a domain: its records, then the empty page that ends the read). It is
 *    asked for with `maxItems` at exactly that many records: a shorter answer is the whole zone.
 * 2. Otherwise (the answer filled `maxItems`: the zone is larger), **each domain alone**, by name
 *    suffix (`name.endswith`), which covers the domain, `_dmarc.`, the return path and every
 *    `._domainkey.` name; asked with one page's worth of `maxItems`.
 * 3. A domain with a page or more of records under it (a zone's apex), and a name under no domain
 *    of the run, **by exact name**. A name with `maxItems` records or more is a failure naming the
 *    zone: an answer cut there would read as "nothing else here".
 *
 * So a zone of R records holding D domains of the run costs min(⌈R/100⌉ + 1, 2D) requests when the
 * whole zone fits that budget, and at most 4D when it does not (the cut read, then 2D): one domain
 * below its zone's apex costs 4 at most in a zone of any size (the apex's suffix is the whole
 * zone: it costs 3, then 1 or 2 per name). The worst case against the ideal is a zone just larger
 * than the budget: twice the per-domain reads. A read whose answer may be incomplete is never an
 * empty answer, and an update about to publish where the first read found nothing reads the
 * domain's names again just before (`confirmedAt`): one more read per new domain, none when
 * nothing new is published.
 */

/** Records per page of Cloudflare's list API when `per_page` is not given (the provider gives none). */
export const RECORDS_PER_PAGE = 100;
/** Pages one domain's own read costs: its page of records, and the empty page that ends the read. */
const PAGES_PER_DOMAIN = 2;
/** `getDnsRecords`' `maxItems` when not given, and this module's bound for a read of one name. */
export const NAME_READ_LIMIT = 1000;

/** The provider's function token: the default provider is found by it, as the engine finds it. */
const GET_DNS_RECORDS = "cloudflare:index/getDnsRecords:getDnsRecords";

/**
 * The provider answered a read with no `results` at all: not an empty zone but no read, as the
 * engine answers for a provider whose configuration is not known yet (a preview where the token
 * comes from a resource still to be made). `underMocks`: unit-test mocks answered (`setMocks`).
 */
export class ZoneNotRead extends Error {
  constructor(
    readonly zoneId: string,
    readonly underMocks = false,
  ) {
    super(
      underMocks
        ? `the unit-test mocks (pulumi.runtime.setMocks) answered the read of zone ${zoneId} (${GET_DNS_RECORDS}) ` +
            "without `results`"
        : `the Cloudflare provider answered the read of zone ${zoneId} without any records, as it does when its ` +
            "configuration is not known yet",
    );
    this.name = "ZoneNotRead";
  }
}

type ReadRecords = (
  args: cloudflare.GetDnsRecordsArgs,
  provider: pulumi.ProviderResource | undefined,
) => Promise<cloudflare.GetDnsRecordsResult>;

/** What a read of one zone has found so far. */
interface ZoneState {
  /** Domains of the run on this zone (lowercase, without a final dot). */
  domains: Set<string>;
  /** The whole zone, or undefined when it holds more records than reading it whole was worth. */
  whole?: Promise<ExistingRecord[] | undefined>;
  /** Per domain: its records and those under it, or undefined when a page or more. */
  byDomain: Map<string, Promise<ExistingRecord[] | undefined>>;
  byName: Map<string, Promise<ExistingRecord[]>>;
  /** Reads for the writes about to be made (`confirmedAt`), by domain or name, while under way. */
  fresh: Map<string, Promise<ExistingRecord[] | undefined>>;
  /** Whether the run said that the zone could not be read. */
  notReadSaid?: boolean;
}

/** The zone reads of one program run through one Cloudflare provider (or the default one). */
export class ZoneReads {
  private readonly zones = new Map<string, ZoneState>();

  constructor(
    private readonly provider: pulumi.ProviderResource | undefined,
    private readonly read: ReadRecords = readThroughProvider,
  ) {}

  /** True the first time a zone (or `key`) could not be read in this run (to say so once). */
  firstNotRead(zoneId: string): boolean {
    const zone = this.zone(zoneId);
    if (zone.notReadSaid) return false;
    zone.notReadSaid = true;
    return true;
  }

  /** Counts `domain` among the run's domains on `zoneId`, before that zone is read. */
  register(zoneId: string, domain: string): void {
    this.zone(zoneId).domains.add(normalName(domain));
  }

  /** The zone's records named `name` (any type), from the run's reads of that zone. */
  async recordsAt(zoneId: string, name: string): Promise<ExistingRecord[]> {
    const wanted = normalName(name);
    const zone = this.zone(zoneId);
    // One turn of the event loop, so that every Domain of this turn has registered.
    zone.whole ??= nextTurn().then(() => this.readWhole(zoneId, Math.max(zone.domains.size, 1)));
    const whole = await zone.whole;
    if (whole) return named(whole, wanted);
    const domain = coveringDomain(zone.domains, wanted);
    if (domain !== undefined) {
      let under = zone.byDomain.get(domain);
      if (!under) zone.byDomain.set(domain, (under = this.readDomain(zoneId, domain)));
      const records = await under;
      if (records) return named(records, wanted);
    }
    let exact = zone.byName.get(wanted);
    if (!exact) zone.byName.set(wanted, (exact = this.readName(zoneId, wanted)));
    return exact;
  }

  /**
   * The records at `name` as the zone holds them now, for a write about to be made there: the
   * run's first read may be minutes old when a new domain's records are written (the service names
   * them once it has made the domain), and a second SPF record added meanwhile is a permerror for
   * receivers. So the name is read again, with its domain's names (one suffix read, shared by the
   * domain's writes that ask while it is under way), else alone. Only writes pay; the records
   * either read found count, so offset paging of a large first read cannot hide one either.
   */
  async confirmedAt(zoneId: string, name: string): Promise<ExistingRecord[]> {
    const wanted = normalName(name);
    const first = await this.recordsAt(zoneId, wanted);
    const zone = this.zone(zoneId);
    const domain = coveringDomain(zone.domains, wanted);
    const earlier = domain === undefined ? undefined : zone.byDomain.get(domain);
    // A domain already known to hold a page or more (a zone's apex) is read by name straight away.
    const large = earlier !== undefined && (await earlier) === undefined;
    let now: ExistingRecord[];
    const byName = async () =>
      (await this.fresh(zone, `name ${wanted}`, () => this.readName(zoneId, wanted))) ?? [];
    if (domain === undefined || large) now = await byName();
    else {
      const under = await this.fresh(zone, `domain ${domain}`, () => this.readDomain(zoneId, domain));
      // A domain with a page or more of records (a zone's apex): this name alone.
      now = under ? named(under, wanted) : await byName();
    }
    return uniqueById([...first, ...now]);
  }

  /**
   * A read made for writes about to be made, shared by those that ask while it is under way (a
   * domain's records are known at once, when the service answers), never by a later one: that
   * reads the zone again.
   */
  private fresh(
    zone: ZoneState,
    key: string,
    read: () => Promise<ExistingRecord[] | undefined>,
  ): Promise<ExistingRecord[] | undefined> {
    let made = zone.fresh.get(key);
    if (!made) {
      made = read();
      zone.fresh.set(key, made);
      const forget = () => setImmediate(() => zone.fresh.delete(key));
      made.then(forget, forget);
    }
    return made;
  }

  /**
   * The zone's records at `domain` and under it, when the run's reads cover them (the whole zone,
   * or the domain alone); undefined when only reads by exact name are worth making.
   */
  async recordsUnder(zoneId: string, domain: string): Promise<ExistingRecord[] | undefined> {
    const wanted = normalName(domain);
    const zone = this.zone(zoneId);
    const under = (records: readonly ExistingRecord[]) =>
      records.filter((record) => coveringDomain(new Set([wanted]), normalName(record.name)) !== undefined);
    await this.recordsAt(zoneId, wanted); // the zone's read, or this domain's
    const whole = await zone.whole;
    if (whole) return under(whole);
    const own = await zone.byDomain.get(wanted);
    return own && under(own);
  }

  private zone(zoneId: string): ZoneState {
    let zone = this.zones.get(zoneId);
    if (!zone)
      this.zones.set(
        zoneId,
        (zone = { domains: new Set(), byDomain: new Map(), byName: new Map(), fresh: new Map() }),
      );
    return zone;
  }

  /** The records a read found; a read answered without `results` is no read. */
  private async results(
    args: cloudflare.GetDnsRecordsArgs,
  ): Promise<cloudflare.types.output.GetDnsRecordsResult[]> {
    const found = await this.read(args, this.provider);
    if (!Array.isArray(found?.results)) throw new ZoneNotRead(String(args.zoneId), runsUnderMocks());
    // A record added while a read of several pages is under way moves the others a place back:
    // one of them is then read twice.
    const seen = new Set<string>();
    return found.results.filter((result) => !seen.has(result.id) && seen.add(result.id));
  }

  private async readWhole(zoneId: string, domains: number): Promise<ExistingRecord[] | undefined> {
    const maxItems = domains * PAGES_PER_DOMAIN * RECORDS_PER_PAGE;
    const results = await this.results({ zoneId, maxItems });
    return results.length < maxItems ? results.map(existingRecord) : undefined;
  }

  private async readDomain(zoneId: string, domain: string): Promise<ExistingRecord[] | undefined> {
    const maxItems = RECORDS_PER_PAGE;
    const results = await this.results({ zoneId, name: { endswith: domain }, maxItems });
    return results.length < maxItems ? results.map(existingRecord) : undefined;
  }

  private async readName(zoneId: string, name: string): Promise<ExistingRecord[]> {
    const maxItems = NAME_READ_LIMIT;
    const results = await this.results({ zoneId, name: { exact: name }, maxItems });
    if (results.length >= maxItems) {
      throw new Error(
        `zone ${zoneId} holds ${maxItems} or more records named ${name}: a read of them may be incomplete, ` +
          "and what it left out could be a record in the way. Remove the surplus records at that name.",
      );
    }
    return results.map(existingRecord);
  }
}

/**
 * The zone reads of this program run through `provider` (the Domain's `cloudflare.provider`, else
 * the one its parents give, else the default). One run is one Pulumi monitor: under the test kit
 * each run of a program gets its own mocks, so nothing read in one run answers another.
 */
export function zoneReadsFor(
  provider: pulumi.ProviderResource | undefined,
  parent: pulumi.Resource,
): ZoneReads {
  const resolved = provider ?? parent.getProvider(GET_DNS_RECORDS);
  const run = pulumi.runtime.getMonitor() ?? NO_MONITOR;
  let byProvider = runs.get(run);
  if (!byProvider) runs.set(run, (byProvider = new Map()));
  let reads = byProvider.get(resolved);
  if (!reads) byProvider.set(resolved, (reads = new ZoneReads(resolved)));
  return reads;
}

const NO_MONITOR = {};
const runs = new WeakMap<object, Map<pulumi.ProviderResource | undefined, ZoneReads>>();

function readThroughProvider(
  args: cloudflare.GetDnsRecordsArgs,
  provider: pulumi.ProviderResource | undefined,
): Promise<cloudflare.GetDnsRecordsResult> {
  return cloudflare.getDnsRecords(args, { provider });
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
