import { execFile } from "node:child_process";
import * as dgram from "node:dgram";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../packaging/clean-clone";
import { startEmulator, type CreatedDomainJson, type DnsRecordJson, type Emulator } from "../../emulator";
import { NOT_SERVED_HEADING } from "../../provider/doctor/report";
import { startDnsFaultProxy } from "../support/dns-fault-proxy";

/**
 * `pulumi-email-delivery doctor <domain>` as built (dist/provider/doctor/bin.js), against an emulator
 * started here: exit 0 when every check passes, 1 when one does not, 2 on a usage or settings
 * error; `--json`; a table within 80 columns (but for the values printed whole to copy); the key
 * never printed. With `--records` and `--dns` (the emulator's two nameservers), each failing
 * check's diagnosis: propagating, another value, not published; what DNS serves escaped before it
 * reaches a terminal; the questions asked for a records file of many domains.
 */

const BIN = `${REPO_ROOT}/dist/provider/doctor/bin.js`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function doctor(args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH, ...env } },
      (_e, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
    child.stdin!.end(stdin ?? "");
  });
}

/** A domain's records as a Pulumi program exports a `Domain`'s `dnsRecords` (`content`, TXT unquoted). */
function exported(domain: CreatedDomainJson): object[] {
  return domain.dns_records.map(({ value, ...rest }) => ({ ...rest, content: value }));
}

/** Publishes records in the emulator's zone as the `Domain` would (TXT quoted); `change` alters one. */
async function publish(
  records: DnsRecordJson[],
  change: (record: DnsRecordJson) => string = (record) => record.value,
): Promise<void> {
  for (const record of records)
    await emulator.cloudflare.addRecord("example.com", {
      type: record.type,
      name: record.name,
      content: record.type === "TXT" ? JSON.stringify(change(record)) : change(record),
      ...(record.priority === undefined ? {} : { priority: record.priority }),
    });
}

let folder: string;
/** The records written where `--records` reads them. */
function recordsFile(name: string, value: unknown): string {
  const file = path.join(folder, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

let emulator: Emulator;
let env: NodeJS.ProcessEnv;
let good: CreatedDomainJson;
let bare: CreatedDomainJson;
let dns: string;
beforeAll(async () => {
  emulator = await startEmulator({ zones: ["example.com"], nameservers: 2 });
  good = await emulator.emailApi.addDomain("good.example.com", { verified: true });
  bare = await emulator.emailApi.addDomain("bare.example.com");
  env = { EMAIL_DELIVERY_BASE_URL: emulator.emailApi.url, EMAIL_DELIVERY_API_KEY: emulator.emailApi.apiKey };
  dns = emulator.dns.nameservers.map((server) => server.address).join(",");
  folder = mkdtempSync(path.join(tmpdir(), "doctor-records-"));
});
afterAll(async () => {
  await emulator.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** Every line within 80 columns, but the values printed whole below NOT_SERVED_HEADING. */
function expectWithin80(run: Run): void {
  const [table] = run.stdout.split(`\n${NOT_SERVED_HEADING}\n`);
  for (const line of (table + run.stderr).split("\n")) expect(line.length).toBeLessThanOrEqual(80);
}

/** The lines after NOT_SERVED_HEADING: a record's check, type, name (and priority), then its value. */
function notServedBlock(run: Run): string[] {
  const lines = run.stdout.trimEnd().split("\n");
  return lines.slice(lines.indexOf(NOT_SERVED_HEADING) + 1);
}

/** What a terminal acts on or reorders by: C0 and C1 controls (a line break aside), DEL, bidi controls. */
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function expectNoKey(run: Run): void {
  expect(run.stdout + run.stderr).not.toContain(emulator.emailApi.apiKey);
}

it("exit 0 and a table of four OK checks when the domain verifies", async () => {
  const run = await doctor(["doctor", "good.example.com"], env);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("good.example.com: all 4 checks pass");
  expect(run.stdout.match(/ OK\b/g)).toHaveLength(4);
  expectNoKey(run);
});

it("exit 1 with the service's statuses and texts, within 80 columns, when a check fails", async () => {
  const run = await doctor(["doctor", "bare.example.com"], env);
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(/bare\.example\.com: \d of 4 checks failing/);
  expect(run.stdout).toMatch(/DKIM\s+Missing/);
  for (const line of run.stdout.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
  expectNoKey(run);
});

it("--json: one document with each check, the diagnosis rows and the verdict", async () => {
  const run = await doctor(["doctor", "bare.example.com", "--json"], env);
  expect(run.code).toBe(1);
  const report = JSON.parse(run.stdout);
  expect(report).toMatchObject({ domain: "bare.example.com", found: true, passed: false, diagnosis: [] });
  expect(report.checks.map((c: { check: string }) => c.check)).toEqual(["spf", "dkim", "mx", "returnPath"]);
  expect(report.checks[1]).toMatchObject({ label: "DKIM", status: "Missing", passed: false });
  expect(typeof report.checks[1].serviceSays).toBe("string");
  // The hint for the diagnosis goes to stderr, keeping stdout one JSON document.
  expect(run.stderr).toContain("--records FILE");
});

it("exit 1 for a domain the key's server does not have, with --records or without", async () => {
  const run = await doctor(["doctor", "nowhere.example.com"], env);
  expect(run.code).toBe(1);
  expect(run.stdout).toContain("the service has no domain of that name");
  // The file holds no record of that domain: that is not the question once the service has none.
  const withRecords = await doctor(
    ["doctor", "nowhere.example.com", "--records", recordsFile("good-only.json", exported(good))],
    env,
  );
  expect(withRecords).toMatchObject({ code: 1, stderr: "" });
  expect(withRecords.stdout).toContain("the service has no domain of that name");
});

it.each([
  ["no settings", ["doctor", "good.example.com"], {}, "no base URL"],
  ["no domain", ["doctor"], undefined, "no domain"],
  ["an unknown flag", ["doctor", "good.example.com", "--verbose"], undefined, "--verbose"],
  [
    "a refused key",
    ["doctor", "good.example.com"],
    { EMAIL_DELIVERY_API_KEY: "WrongKey000000000000000" },
    "refused the API key from EMAIL_DELIVERY_API_KEY (InvalidServerAPIKey): give a server API key of type API of " +
      "the server that holds the domain (Postal: the server → Credentials)",
  ],
])("exit 2 with the reason: %s", async (_what, args, overrides, reason) => {
  const run = await doctor(
    args,
    overrides && Object.keys(overrides).length === 0 ? {} : { ...env, ...overrides },
  );
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(reason);
  expect(run.stdout).toBe("");
  expectNoKey(run);
});

it("--api-key works and warns that env is safer, without printing the key", async () => {
  const run = await doctor(["doctor", "good.example.com", "--api-key", emulator.emailApi.apiKey], {
    EMAIL_DELIVERY_BASE_URL: emulator.emailApi.url,
  });
  expect(run.code).toBe(0);
  expect(run.stderr).toContain("prefer EMAIL_DELIVERY_API_KEY");
  expectNoKey(run);
});

describe("the diagnosis (--records, --dns)", () => {
  it("exit 0 for a domain whose records are published, and no diagnosis", async () => {
    const run = await doctor(
      ["doctor", "good.example.com", "--records", recordsFile("good.json", exported(good)), "--dns", dns],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("What DNS serves");
    expectNoKey(run);
  });

  it("propagating, 1 of 2: the service's nameserver held back while the other serves the records", async () => {
    const lag = await emulator.emailApi.addDomain("lag.example.com");
    // The service's check asks nameservers[0] (emulator.dns): held, it still serves the zone as
    // it was before the records were published.
    emulator.dns.nameservers[0].hold();
    try {
      await publish(lag.dns_records);
      const run = await doctor(
        ["doctor", "lag.example.com", "--records", recordsFile("lag.json", exported(lag)), "--dns", dns],
        env,
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("What DNS serves, check by check:");
      expect(run.stdout).toContain("DKIM: still propagating");
      expect(run.stdout).toMatch(/1 of 2/);
      expect(run.stdout).toContain(`${emulator.dns.nameservers[0].address}: NXDOMAIN`);
      expectWithin80(run);
      expectNoKey(run);
    } finally {
      emulator.dns.nameservers[0].release();
    }
  });

  it("another value: an old DKIM key published; --json carries check, case, summary, action, facts", async () => {
    const old = await emulator.emailApi.addDomain("old.example.com");
    const oldKey = "v=DKIM1; t=s; h=sha256; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQOLDKEY";
    await publish(old.dns_records, (record) => (record.purpose === "dkim" ? oldKey : record.value));
    const args = [
      "doctor",
      "old.example.com",
      "--records",
      recordsFile("old.json", exported(old)),
      "--dns",
      dns,
    ];

    const table = await doctor(args, env);
    expect(table.code).toBe(1);
    expect(table.stdout).toContain("DKIM: exists with another value");
    expectWithin80(table);
    // The diagnosis cuts the key to 80 columns; below it, whole, on a line of its own.
    const dkim = old.dns_records.find((record) => record.purpose === "dkim")!;
    expect(notServedBlock(table)).toEqual([`  DKIM: TXT ${dkim.name}`, dkim.value]);

    const run = await doctor([...args, "--json"], env);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.diagnosis).toEqual([
      {
        check: "dkim",
        case: "other-value",
        summary: expect.any(String),
        action: expect.any(String),
        facts: expect.objectContaining({
          expected: expect.objectContaining({ purpose: "dkim", type: "TXT" }),
          authoritative: emulator.dns.nameservers.map((server) => ({
            server: server.address,
            answer: { values: [oldKey] },
          })),
        }),
        notServed: [
          expect.objectContaining({ type: "TXT", content: expect.stringMatching(/^v=DKIM1; t=s; /) }),
        ],
      },
    ]);
    expectNoKey(run);
  });

  it("not published, the records read from stdin as `pulumi stack output --json` prints them", async () => {
    const outputs = { domainId: bare.id, bareRecords: exported(bare), goodRecords: exported(good) };
    const run = await doctor(
      ["doctor", "bare.example.com", "--records", "-", "--dns", dns, "--json"],
      env,
      JSON.stringify(outputs),
    );
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.diagnosis.map((row: { check: string; case: string }) => [row.check, row.case])).toEqual([
      ["spf", "not-published"],
      ["dkim", "not-published"],
      ["mx", "not-published"],
      ["returnPath", "not-published"],
    ]);
    const mx = bare.dns_records.filter((record) => record.purpose === "mx");
    expect(mx).toHaveLength(2);
    expect(report.diagnosis[2].notServed).toEqual(
      mx.map((record) => ({
        type: "MX",
        name: record.name,
        content: record.value,
        priority: record.priority,
      })),
    );
  });

  it("both MX hosts missing: the table names each with its priority", async () => {
    const run = await doctor(
      ["doctor", "bare.example.com", "--records", recordsFile("bare.json", exported(bare)), "--dns", dns],
      env,
    );
    expect(run.code).toBe(1);
    const block = notServedBlock(run).join("\n");
    for (const record of bare.dns_records.filter((one) => one.purpose === "mx"))
      expect(block).toContain(`  MX: MX bare.example.com, priority ${record.priority}\n${record.value}\n`);
  });

  it("--dns that nothing answers at: says to check the address and port, not the delegation", async () => {
    // A port that was free a moment ago: nothing listens there (the query is refused at once).
    const closed = await new Promise<number>((resolve) => {
      const socket = dgram.createSocket("udp4");
      socket.bind(0, "127.0.0.1", () => {
        const { port } = socket.address();
        socket.close(() => resolve(port));
      });
    });
    const run = await doctor(
      [
        "doctor",
        "bare.example.com",
        "--records",
        recordsFile("bare.json", exported(bare)),
        "--dns",
        `127.0.0.1:${closed}`,
      ],
      env,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("nameservers do not answer");
    expect(run.stdout.replace(/\s+/g, " ")).toContain(
      `to do: The servers given with --dns (127.0.0.1:${closed}) did not answer: check their addresses and ports.`,
    );
    expect(run.stdout).not.toContain("registrar");
  });

  it("all 4 checks pass but DNS serves two SPF records: exit 1, and what receivers decide with the record and the fix", async () => {
    const twice = await emulator.emailApi.addDomain("twice.example.com");
    await publish(twice.dns_records);
    await emulator.cloudflare.addRecord("example.com", {
      type: "TXT",
      name: "twice.example.com",
      content: JSON.stringify("v=spf1 include:_spf.mailer.example.com ~all"),
    });
    const args = [
      "doctor",
      "twice.example.com",
      "--records",
      recordsFile("twice.json", exported(twice)),
      "--dns",
      dns,
    ];
    const table = await doctor(args, env);
    expect(table.code).toBe(1);
    // The service's checks are a minimum: Postal's SPF check takes any record holding its include.
    expect(table.stdout).toContain(
      "twice.example.com: all 4 checks pass; receivers would not accept its mail",
    );
    expect(table.stdout).toContain("What receivers decide: SPF fail, DKIM pass, DMARC none");
    expect(table.stdout).toContain("  SPF: TXT twice.example.com");
    expect(table.stdout.replace(/\s+/g, " ")).toContain(
      "twice.example.com has 2 SPF records: a name may have one, more is permerror (RFC 7208 §4.5)",
    );
    expect(table.stdout.replace(/\s+/g, " ")).toContain("to do: Keep one SPF record at twice.example.com");
    expectWithin80(table);

    const json = JSON.parse((await doctor([...args, "--json"], env)).stdout);
    expect(json).toMatchObject({
      passed: false,
      receivers: { spf: "fail", dkim: "pass", dmarc: "none", accepted: false },
    });
    expect(json.receivers.findings).toEqual([
      expect.objectContaining({ check: "spf", record: "TXT twice.example.com" }),
    ]);
  });

  it("published as the service asks: exit 0, and receivers accept its mail", async () => {
    const fine = await emulator.emailApi.addDomain("fine.example.com");
    await publish(fine.dns_records);
    const run = await doctor(
      ["doctor", "fine.example.com", "--records", recordsFile("fine.json", exported(fine)), "--dns", dns],
      env,
    );
    expect(run.stdout).toContain("fine.example.com: all 4 checks pass; receivers accept its mail");
    expect(run.code).toBe(0);
  });

  it("without --records: the service's table and one line saying how to get the diagnosis", async () => {
    const run = await doctor(["doctor", "bare.example.com"], env);
    expect(run.code).toBe(1);
    expect(run.stdout.trimEnd().split("\n").at(-1)).toMatch(/--records FILE/);
    expect(run.stdout).not.toContain("What DNS serves");
  });

  it("exit 2, naming the file and what is wrong, before the service is asked", async () => {
    const file = recordsFile("bad.json", [{ purpose: "spf", type: "TXT", name: "bare.example.com" }]);
    const before = emulator.requests.all().length;
    const run = await doctor(["doctor", "bare.example.com", "--records", file], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--records ${file}: [0] has no content`);
    expect(emulator.requests.all().length).toBe(before);
  });

  it("escapes what DNS serves and what the records file names: no control or bidi character printed", async () => {
    const odd = await emulator.emailApi.addDomain("odd.example.com");
    // A key record with a clear screen, an OSC 8 link, a C1 CSI and a right-to-left override (its
    // UTF-8 bytes: E2 80 AE), published byte for byte.
    const hostile =
      "\\027[2J\\027]8;;https://evil.example/\\007x\\027]8;;\\007 \\194\\155 31m \\226\\128\\174lave";
    for (const record of odd.dns_records)
      await emulator.cloudflare.addRecord("example.com", {
        type: record.type,
        name: record.name,
        content:
          record.purpose === "dkim"
            ? `"v=DKIM1; p=old${hostile}"`
            : record.type === "TXT"
              ? JSON.stringify(record.value)
              : record.value,
        ...(record.priority === undefined ? {} : { priority: record.priority }),
      });
    const args = [
      "doctor",
      "odd.example.com",
      "--records",
      recordsFile("odd.json", exported(odd)),
      "--dns",
      dns,
    ];
    const table = await doctor(args, env);
    expect(table.code).toBe(1);
    expect(table.stdout).toContain("DKIM: exists with another value");
    expect(table.stdout + table.stderr).not.toMatch(UNSAFE);
    // The diagnosis keeps a value's start and end (its middle is cut to 80 columns).
    expect(table.stdout).toContain('"v=DKIM1; p=old\\u001b[2J\\u001b]8;;h… \\u202elave"');
    expectWithin80(table);

    const json = await doctor([...args, "--json"], env);
    expect(json.stdout + json.stderr).not.toMatch(UNSAFE);
    // Escaped as JSON escapes: the document reads back as the very characters served.
    const served = JSON.parse(json.stdout).diagnosis[0].facts.authoritative[0].answer.values[0];
    expect(served).toBe(
      "v=DKIM1; p=old\u001b[2J\u001b]8;;https://evil.example/\u0007x\u001b]8;;\u0007 \u009b 31m \u202elave",
    );

    // A records file naming no record of the domain: its names are quoted on stderr, escaped.
    const file = recordsFile("names.json", [
      {
        purpose: "spf",
        type: "TXT",
        name: "\u001b[2J\u009b31m\u202eelsewhere.example.net",
        content: "v=spf1 -all",
      },
    ]);
    const named = await doctor(["doctor", "odd.example.com", "--records", file], env);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain("\\u001b[2J\\u009b31m\\u202eelsewhere.example.net");
    expect(named.stderr).not.toMatch(UNSAFE);
  });

  it("a records file of many domains: as many questions as for the domain's own records alone", async () => {
    const many = await emulator.emailApi.addDomain("many.example.com");
    // 2,000 records of 400 domains under the one asked (as one stack's outputs may hold), and
    // another 100 domains' elsewhere in the zone.
    const others = Array.from({ length: 500 }, (_, i) =>
      exported(many).map((record) => {
        const domain = i < 400 ? `d${i}.many.example.com` : `e${i}.example.com`;
        const rename = (name: string) => name.replace("many.example.com", domain);
        return { ...record, name: rename((record as { name: string }).name) };
      }),
    ).flat();
    const proxy = await startDnsFaultProxy({ upstreamPort: emulator.dns.port });
    try {
      const count = async (records: object[]) => {
        proxy.queries.length = 0;
        const run = await doctor(
          [
            "doctor",
            "many.example.com",
            "--records",
            recordsFile("many.json", records),
            "--dns",
            proxy.address,
          ],
          env,
        );
        expect(run.code).toBe(1);
        return [...proxy.queries];
      };
      const own = await count(exported(many));
      const all = await count([...others, ...exported(many)]);
      expect(all.length).toBe(own.length);
      expect(all.sort()).toEqual(own.sort());
      // Each question once: four failing checks and receivers' judgement of one domain.
      expect(new Set(all).size).toBe(all.length);
    } finally {
      await proxy.close();
    }
  });
});
