import type { DnsRecord, DomainCheck } from "../../provider/client";
import {
  DNS_CONCURRENCY,
  diagnoseChecks,
  doctorDnsQuery,
  examineDomain,
} from "../../provider/doctor/diagnosis";
import type { DnsAnswer, DnsQuery } from "../../provider/dns/dns-query";

/**
 * The doctor's DNS side without sockets: a table of answers stands for DNS. What it says when the
 * servers given with --dns do not answer, which records it names as not served, and how many
 * questions it has in flight.
 */

const DOMAIN = "mail.example.com";
const RECORDS: DnsRecord[] = [
  { purpose: "spf", type: "TXT", name: DOMAIN, content: "v=spf1 a mx include:spf.postal.example.com ~all" },
  { purpose: "dkim", type: "TXT", name: `postal-AB._domainkey.${DOMAIN}`, content: "v=DKIM1; p=MIGf" },
  { purpose: "return_path", type: "CNAME", name: `psrp.${DOMAIN}`, content: "rp.postal.example.com" },
  { purpose: "mx", type: "MX", name: DOMAIN, content: "mx1.postal.example.com", priority: 10 },
  { purpose: "mx", type: "MX", name: DOMAIN, content: "mx2.postal.example.com", priority: 20 },
];
const MISSING: DomainCheck = {
  spfStatus: "Missing",
  spfError: "No SPF record exists for this domain",
  dkimStatus: "Missing",
  dkimError: "No TXT records were returned",
  mxStatus: "Missing",
  mxError: `There are no MX records for ${DOMAIN}`,
  returnPathStatus: "Missing",
  returnPathError: "There is no return path record",
};
const ALL = ["spf", "dkim", "mx", "returnPath"] as const;

/** DNS as a table: `answers[name type]`, NXDOMAIN elsewhere; every question counted. */
function tableQuery(answers: Record<string, DnsAnswer> = {}) {
  const asked: string[] = [];
  const query: DnsQuery = async (server, name, type) => {
    asked.push(`${server} ${name} ${type}`);
    return answers[`${name.toLowerCase()} ${type}`] ?? { nxdomain: true };
  };
  return { query, asked };
}

describe("the doctor's diagnosis", () => {
  it("says the servers given with --dns did not answer, not that the registrar delegates elsewhere", async () => {
    const refused: DnsQuery = async () => ({ error: "ECONNREFUSED" });
    const rows = await diagnoseChecks({
      result: MISSING,
      failing: ALL,
      records: RECORDS,
      nameservers: ["127.0.0.1:5399"],
      query: refused,
    });
    expect(rows.map((row) => row.case)).toEqual(["no-answer", "no-answer", "no-answer", "no-answer"]);
    for (const row of rows) {
      expect(row.action).toBe(
        "The servers given with --dns (127.0.0.1:5399) did not answer: check their addresses and ports.",
      );
      expect(row.action).not.toContain("registrar");
    }
  });

  it("names every MX host not served, with its priority, and the DKIM record whole", async () => {
    const { query } = tableQuery({
      [`${DOMAIN} MX`]: { values: ["mx2.postal.example.com"] },
      [`${DOMAIN} NS`]: { values: [] },
    });
    const rows = await diagnoseChecks({
      result: MISSING,
      failing: ["dkim", "mx"],
      records: RECORDS,
      nameservers: ["127.0.0.1:5399"],
      query,
    });
    expect(rows.map((row) => [row.check, row.notServed])).toEqual([
      ["dkim", [{ type: "TXT", name: `postal-AB._domainkey.${DOMAIN}`, content: "v=DKIM1; p=MIGf" }]],
      ["mx", [{ type: "MX", name: DOMAIN, content: "mx1.postal.example.com", priority: 10 }]],
    ]);
  });

  it("names both MX hosts, each with its priority, when neither is served", async () => {
    const rows = await diagnoseChecks({
      result: MISSING,
      failing: ["mx"],
      records: RECORDS,
      nameservers: ["127.0.0.1:5399"],
      query: tableQuery().query,
    });
    expect(rows[0].notServed).toEqual([
      { type: "MX", name: DOMAIN, content: "mx1.postal.example.com", priority: 10 },
      { type: "MX", name: DOMAIN, content: "mx2.postal.example.com", priority: 20 },
    ]);
  });
});

describe("the doctor's questions", () => {
  it(`has at most ${DNS_CONCURRENCY} in flight, and asks each one once, diagnosis and judgement together`, async () => {
    // 300 DKIM keys at the domain: the DKIM check diagnoses each of them.
    const keys: DnsRecord[] = Array.from({ length: 300 }, (_, i) => ({
      purpose: "dkim",
      type: "TXT",
      name: `postal-K${i}._domainkey.${DOMAIN}`,
      content: "v=DKIM1; p=MIGf",
    }));
    let inFlight = 0;
    let most = 0;
    const asked: string[] = [];
    const slow: DnsQuery = async (server, name, type) => {
      inFlight++;
      most = Math.max(most, inFlight);
      asked.push(`${server} ${name.toLowerCase()} ${type}`);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return { nxdomain: true };
    };
    const examination = examineDomain({
      records: [...RECORDS, ...keys],
      nameservers: ["127.0.0.1:5399", "127.0.0.1:5400"],
      query: doctorDnsQuery(slow),
    });
    const { diagnosis } = await examination.diagnose(MISSING, ALL);
    await examination.receivers;
    expect(diagnosis).toHaveLength(4);
    expect(asked.length).toBeGreaterThan(600);
    expect(most).toBe(DNS_CONCURRENCY);
    expect(new Set(asked).size).toBe(asked.length);
  });
});
