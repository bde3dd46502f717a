import { steppedWaitClock } from "../support/fake-clock";
import type { DomainCheck } from "../../provider/client";
import { checkDiagnoser } from "../../provider/verification/check-diagnosis";
import { diagnose } from "../../provider/verification/diagnosis";
import { DiagnosisFacts, ExpectedRecord } from "../../provider/verification/diagnosis-facts";
import type { CheckDiagnoses } from "../../provider/verification/diagnosis-facts";
import type { DnsQuery } from "../../provider/dns/dns-query";
import { timeoutMessage } from "../../provider/verification/report";
import { waitForChecks, WaitOptions } from "../../provider/verification/wait";
import { ALL_CHECKS_OK } from "../support/checks";

/**
 * The diagnosis in the wait and its failure: `WaitOptions.diagnose` is asked after each check
 * with failing checks; its cases go into the progress lines, its facts under the failure's table.
 * On a fake clock, with DNS answered from a table (the gatherer's own test asks the emulator's DNS).
 */

const KEY = "v=DKIM1; t=s; h=sha256; p=NEWKEY";
const OLD_KEY = "v=DKIM1; t=s; h=sha256; p=OLDKEY";
const DKIM: ExpectedRecord = {
  purpose: "dkim",
  name: "postal-ab._domainkey.mail.example.com",
  type: "TXT",
  value: KEY,
};
const DKIM_INVALID: DomainCheck = {
  ...ALL_CHECKS_OK,
  dkimStatus: "Invalid",
  dkimError: "The DKIM record at postal-ab._domainkey.mail.example.com does not match",
};

function facts(values: string[]): DiagnosisFacts {
  return {
    expected: DKIM,
    authoritative: [{ server: "ns1.example.net (192.0.2.1)", answer: { values } }],
    service: { status: "Invalid", text: DKIM_INVALID.dkimError },
  };
}
const OLD: CheckDiagnoses = { dkim: { facts: facts([OLD_KEY]), diagnosis: diagnose(facts([OLD_KEY])) } };

function settings(extra: Partial<WaitOptions>): { options: WaitOptions; lines: string[] } {
  const clock = steppedWaitClock();
  const lines: string[] = [];
  const options: WaitOptions = {
    checks: ["spf", "dkim", "mx", "returnPath"],
    timeoutMs: 20_000,
    pollIntervalMs: 5_000,
    maxPollIntervalMs: 5_000,
    log: (line) => lines.push(line),
    ...clock.wait,
    ...extra,
  };
  return { options, lines };
}

describe("a wait with a diagnosis", () => {
  it("says each failing check's case in its progress lines, and keeps the last diagnosis", async () => {
    const asked: string[][] = [];
    const { options, lines } = settings({
      diagnose: async (_result, failing) => (asked.push([...failing]), OLD),
    });
    const outcome = await waitForChecks(async () => DKIM_INVALID, options);
    expect(outcome).toMatchObject({ verified: false, diagnoses: OLD });
    expect(asked[0]).toEqual(["dkim"]);
    expect(asked).toHaveLength(outcome.polls);
    expect(lines[0]).toBe("waiting for DKIM (Invalid; exists with another value); 20s left");
  });

  it("is not asked once every check passes", async () => {
    const diagnoseCalls: number[] = [];
    const { options } = settings({ diagnose: async () => (diagnoseCalls.push(1), {}) });
    expect(await waitForChecks(async () => ALL_CHECKS_OK, options)).toEqual({
      result: ALL_CHECKS_OK,
      verified: true,
      polls: 1,
      serviceChecks: 1,
    });
    expect(diagnoseCalls).toEqual([]);
  });

  it("reports a diagnosis that failed, and the wait goes on as without one", async () => {
    const { options } = settings({ diagnose: async () => Promise.reject(new Error("no DNS here")) });
    const outcome = await waitForChecks(async () => DKIM_INVALID, options);
    expect(outcome.diagnosisError?.message).toBe("no DNS here");
    expect(timeoutMessage("mail.example.com", 20, options.checks, outcome)).toContain(
      "The records could not be diagnosed: no DNS here",
    );
  });
});

describe("timeoutMessage with diagnoses", () => {
  it("keeps the service's text in the table and puts each failing check's facts beneath it, in 80 columns", () => {
    const message = timeoutMessage("mail.example.com", 20, ["spf", "dkim"], {
      result: DKIM_INVALID,
      polls: 4,
      diagnoses: OLD,
    });
    const [table, below] = message.split("What DNS serves, check by check:\n");
    // The service's text wrapped in its column.
    expect(table.replace(/\s+/g, " ")).toContain(DKIM_INVALID.dkimError);
    expect(below).toMatch(/^ {2}DKIM: exists with another value\n/);
    expect(below).toContain(`"${OLD_KEY}"`);
    expect(below).toContain("to do: Replace its content with the expected value.");
    const section = below.slice(0, below.indexOf("\nFix the records named above"));
    for (const line of section.split("\n")) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it("is the table alone without a diagnosis, as before", () => {
    const message = timeoutMessage("mail.example.com", 20, ["dkim"], { result: DKIM_INVALID, polls: 4 });
    expect(message).not.toContain("What DNS serves");
  });
});

describe("checkDiagnoser", () => {
  const table: Record<string, string[]> = {
    "NS example.com": ["ns1.example.net"],
    "A ns1.example.net": ["192.0.2.1"],
    [`TXT ${DKIM.name}`]: [OLD_KEY],
    "MX mail.example.com": ["mx1.postal.example"],
  };
  const query: DnsQuery = async (_server, name, type) => {
    const values = table[`${type} ${name}`];
    return values ? { values } : { nxdomain: true };
  };

  it("asks each server once per name and type in a call: an MX check's two hosts share the answer", async () => {
    const asked: string[] = [];
    const diagnoser = checkDiagnoser({
      expected: [
        { purpose: "mx", name: "mail.example.com", type: "MX", value: "mx1.postal.example" },
        { purpose: "mx", name: "mail.example.com", type: "MX", value: "mx2.postal.example" },
      ],
      dns: { query: (server, name, type) => (asked.push(`${type} ${name}`), query(server, name, type)) },
    });
    const diagnoses = await diagnoser(undefined, ["mx"], { brief: true });
    // The second host is the one missing: it is the one diagnosed.
    expect(diagnoses.mx?.facts.expected.value).toBe("mx2.postal.example");
    expect(asked.filter((line) => line === "MX mail.example.com")).toHaveLength(1);
  });

  it("diagnoses each failing check by its expected record, with the zone's records when given", async () => {
    const asked: string[][] = [];
    const diagnoser = checkDiagnoser({
      expected: [DKIM, { purpose: "spf", name: "mail.example.com", type: "TXT", value: "v=spf1 ~all" }],
      dns: { query },
      zoneRecords: async (names) => (
        asked.push(names),
        { zone: "example.com", records: [{ name: DKIM.name, type: "TXT", content: `"${OLD_KEY}"` }] }
      ),
    });
    const diagnoses = await diagnoser(DKIM_INVALID, ["dkim"], { zone: true });
    expect(Object.keys(diagnoses)).toEqual(["dkim"]);
    expect(diagnoses.dkim?.diagnosis.case).toBe("other-value");
    expect(diagnoses.dkim?.facts.service).toEqual({ status: "Invalid", text: DKIM_INVALID.dkimError });
    expect(diagnoses.dkim?.facts.zone?.records).toHaveLength(1);
    expect(asked).toEqual([[DKIM.name, `${DKIM.name}.example.com`]]);
  });

  it("picks, of several MX records, the one DNS does not serve", async () => {
    const mx = (value: string): ExpectedRecord => ({
      purpose: "mx",
      name: "mail.example.com",
      type: "MX",
      value,
    });
    const diagnoser = checkDiagnoser({
      expected: [mx("mx1.postal.example"), mx("mx2.postal.example")],
      dns: { query },
    });
    const diagnoses = await diagnoser({ ...ALL_CHECKS_OK, mxStatus: "Missing", mxError: "x" }, ["mx"]);
    expect(diagnoses.mx?.facts.expected.value).toBe("mx2.postal.example");
    expect(diagnoses.mx?.diagnosis.case).toBe("other-value");
  });
});
