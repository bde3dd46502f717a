import { log } from "./engine-log";
import { dnsRecordsApi } from "../cloudflare/dns-records";
import { recentZoneRecords } from "../cloudflare/recent-zone-reads";
import { DEFAULT_WHEN_RECEIVERS_REJECT, VerificationInputs } from "../inputs";
import { receiversJudge } from "../verification/receivers-judge";
import { checkDiagnoser, expectedRecords } from "../verification/check-diagnosis";
import { bareName } from "../verification/dns-facts";
import { DEFAULT_SERVICE_CHECK_CAP_MS } from "../verification/dns-first";
import type { WaitOptions } from "../verification/wait";
import { cloudflareSetting } from "./cloudflare-setting";
import { dnsNameserversSetting, dnsResolverSetting } from "./dns-settings";

/**
 * What a verification's wait needs to explain itself and to spare the service: a diagnoser over
 * the domain's expected records, asking the nameservers the settings name (the kit's emulator)
 * or the zone's own, and the zone's records when it knows the zone and the package has a
 * Cloudflare token; and DNS first, so the service's check is asked when DNS shows the records
 * (or every two minutes, or when DNS cannot tell); and once the service passes, receivers' judgement
 * of the records as served (`receiversJudge`). Nothing when it was given no records (a
 * standalone verification, an adopted domain): the wait is then the service's checks alone.
 */
export function verificationDiagnoser(
  inputs: Pick<VerificationInputs, "dnsRecords" | "zoneId" | "timeoutSeconds" | "whenReceiversReject">,
): Pick<WaitOptions, "diagnose" | "dnsFirst" | "receivers"> {
  const expected = expectedRecords(inputs.dnsRecords ?? []);
  if (expected.length === 0) return {};
  const nameservers = dnsNameserversSetting();
  const resolver = dnsResolverSetting();
  const dns = { ...(nameservers ? { nameservers } : {}), ...(resolver ? { resolver } : {}) };
  const judge = receiversJudge(inputs.dnsRecords ?? [], dns);
  return {
    diagnose: checkDiagnoser({
      expected,
      dns,
      ...(inputs.zoneId ? zoneReader(inputs.zoneId, Date.now()) : {}),
    }),
    ...(judge
      ? { receivers: { judge, whenRejected: inputs.whenReceiversReject ?? DEFAULT_WHEN_RECEIVERS_REJECT } }
      : {}),
    // A quarter of a short wait at most: a wait of a minute still asks the service 4 times while
    // one nameserver lags, so one busy answer at the deadline cannot fail it.
    dnsFirst: {
      serviceCheckCapMs: Math.min(DEFAULT_SERVICE_CHECK_CAP_MS, (inputs.timeoutSeconds * 1000) / 4),
    },
  };
}

/**
 * The zone's records at some names, from a whole-zone read shared for a minute across this
 * process's verifications (see `recent-zone-reads.ts`): 1,000 failures in one zone cost a read or
 * two, not a request per name. Its retries are short: it only explains a failure. Without a
 * Cloudflare token for the package's own requests the zone is left out: the records may well be
 * published with a token only the program's Cloudflare provider has.
 */
function zoneReader(
  zoneId: string,
  waitBegan: number,
): { zoneRecords?: Parameters<typeof checkDiagnoser>[0]["zoneRecords"] } {
  let account: { baseUrl: string; apiToken: string };
  try {
    account = { baseUrl: cloudflareSetting("baseUrl"), apiToken: cloudflareSetting("apiToken") };
  } catch (error) {
    log.debug(`The zone's records are left out of the diagnosis: ${(error as Error).message}`);
    return {};
  }
  const api = dnsRecordsApi({ ...account, budgetMs: ZONE_READ_BUDGET_MS });
  return {
    zoneRecords: async (names) => {
      const wanted = new Set(names.map(bareName));
      const held = await recentZoneRecords(api, account, zoneId, waitBegan);
      return {
        zone: zoneId,
        records: held
          .filter((record) => wanted.has(bareName(record.name)))
          .map((record) => ({
            name: record.name,
            type: record.type,
            content: record.content,
            proxied: record.proxied,
          })),
      };
    },
  };
}

/** A read for a diagnosis gives up after this, retries included. */
const ZONE_READ_BUDGET_MS = 10_000;
