import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";

/**
 * Real receivers' reference implementations asked how they judge one email message, every DNS query
 * sent to the emulator's DNS server on 127.0.0.1 (nothing else is contacted):
 *
 * - rspamd (Debian's rspamd): a private instance per test file, its configuration generated into a
 *   temporary folder (the stock `$CONFDIR/common.conf`, modules that reach other hosts or need
 *   Redis turned off), asked over HTTP (`POST /checkv2`);
 * - pyspf (python3-spf) over py3dns, as in `pyspf.ts`;
 * - dkimpy (python3-dkim) over dnspython, every signature verified;
 * - authheaders (python3-authheaders): its DMARC evaluation (`check_dmarc`), over its own pyspf
 *   and dkimpy results, as `authenticate_message` runs them.
 *
 * The Python libraries run in `receivers-check.py`, one process per batch of messages. Debian
 * installs them for the system's Python (/usr/bin/python3), which may not be the `python3` first on
 * PATH.
 *
 * Known behaviour to keep in mind when comparing:
 * - rspamd skips SPF and DMARC for a loopback client (`clientIp` 127.0.0.1): use another address
 *   (192.0.2.x, TEST-NET-1);
 * - rspamd 3.4 with two SPF records uses the first it gets (RFC 7208 §4.5 says permerror);
 * - authheaders 0.15.2 cuts a From domain at its first hyphen (`@([a-z0-9.]+)`): use From domains
 *   without hyphens for its DMARC verdict; it also verifies only the first DKIM-Signature;
 * - rspamd's URL and organizational-domain list is the stock public suffix list cut down to the
 *   rules of `.com`, `.net` and `.org` (the only TLDs the tests' zones use): compiling the whole list
 *   takes rspamd 20 s or more, compiling this one about a second.
 */

const HELPER = path.join(__dirname, "receivers-check.py");
const PYTHONS = ["/usr/bin/python3", "python3"];

/** Set by .ci/run where the receivers could be installed: then their absence fails instead of skipping. */
export const RECEIVERS_ENV = "EMAIL_DELIVERY_RECEIVERS";

export type ReceiverName = "rspamd" | "pyspf" | "dkimpy" | "authheaders";

/** Which receivers this machine has (all of them, or why not). */
export type ReceiversHere =
  | {
      available: true;
      /** A Python that imports pyspf (over py3dns), dkimpy, dnspython and authheaders. */
      python: string;
      /** The rspamd binary, and where its stock data is (`effective_tld_names.dat`). */
      rspamd: { binary: string; shareDir: string };
      /** Each receiver's version, e.g. `{ rspamd: "3.4", pyspf: "2.0.14", … }`. */
      versions: Record<ReceiverName | "dnspython", string>;
    }
  | { available: false; reason: string; missing: ReceiverName[] };

/**
 * Which receivers are here, or why not, probed with synchronous child processes: call it when a test
 * file is collected (to choose `describe` or `describe.skip`), before any emulator runs in the
 * process, never while an in-process server must answer the child.
 */
export function receiversHere(): ReceiversHere {
  const problems: string[] = [];
  const missing: ReceiverName[] = [];
  const python = probePython();
  if (!python.ok) {
    problems.push(python.reason);
    missing.push(...python.missing);
  }
  const rspamd = probeRspamd();
  if (!rspamd.ok) {
    problems.push(rspamd.reason);
    missing.push("rspamd");
  }
  if (!python.ok || !rspamd.ok) return { available: false, reason: problems.join("; "), missing };
  return {
    available: true,
    python: python.python,
    rspamd: { binary: rspamd.binary, shareDir: rspamd.shareDir },
    versions: { ...python.versions, rspamd: rspamd.version },
  };
}

/**
 * Throws when `RECEIVERS_ENV` is `require` and a receiver is missing (CI installed them, so a
 * detection slip must fail the run), else warns that the tests needing them skip, and why.
 */
export function requireReceiversWhereInstalled(here: ReceiversHere, what: string): void {
  if (here.available) return;
  if (process.env[RECEIVERS_ENV] === "require")
    throw new Error(`${RECEIVERS_ENV}=require, but ${here.reason}`);
  console.warn(`${what} skipped: ${here.reason}.`);
}

type PythonProbe =
  | { ok: true; python: string; versions: Record<"pyspf" | "dkimpy" | "authheaders" | "dnspython", string> }
  | { ok: false; reason: string; missing: ReceiverName[] };

/** The helper's own imports: pyspf with dnspython blocked (so over py3dns), then the others. */
const PYTHON_PROBE = `
import json, sys, warnings
from importlib import metadata
warnings.simplefilter("ignore")
found, missing = {}, []
sys.modules["dns"] = None
try:
    import DNS, spf
    found["pyspf"] = spf.__version__
except Exception as error:
    missing.append(["pyspf", "pyspf with py3dns (python3-spf, python3-dns): %s" % error])
del sys.modules["dns"]
for name, module, dist, package in [("dnspython", "dns.resolver", "dnspython", "python3-dnspython"), ("dkimpy", "dkim", "dkimpy", "python3-dkim"), ("authheaders", "authheaders", "authheaders", "python3-authheaders")]:
    try:
        __import__(module)
        try:
            found[name] = metadata.version(dist)
        except Exception:
            found[name] = "?"
    except Exception as error:
        missing.append([name, "%s (%s): %s" % (name, package, error)])
print(json.dumps({"found": found, "missing": missing}))
`;

function probePython(): PythonProbe {
  let best: { python: string; missing: [ReceiverName | "dnspython", string][] } | undefined;
  for (const python of PYTHONS) {
    const run = spawnSync(python, ["-c", PYTHON_PROBE], { encoding: "utf8", timeout: 60_000 });
    if (run.status !== 0) continue;
    const answer = JSON.parse(run.stdout) as {
      found: Record<string, string>;
      missing: [ReceiverName | "dnspython", string][];
    };
    if (answer.missing.length === 0) {
      return {
        ok: true,
        python,
        versions: answer.found as Record<"pyspf" | "dkimpy" | "authheaders" | "dnspython", string>,
      };
    }
    if (!best || answer.missing.length < best.missing.length) best = { python, missing: answer.missing };
  }
  if (!best)
    return {
      ok: false,
      reason: `none of ${PYTHONS.join(", ")} runs`,
      missing: ["pyspf", "dkimpy", "authheaders"],
    };
  const names = best.missing.map(([name]) => name);
  return {
    ok: false,
    reason: `${best.python} cannot import ${best.missing.map(([, why]) => why).join("; ")}`,
    // dnspython missing takes dkimpy's and authheaders' DNS with it.
    missing: [
      ...new Set(
        names.flatMap((name): ReceiverName[] => (name === "dnspython" ? ["dkimpy", "authheaders"] : [name])),
      ),
    ],
  };
}

type RspamdProbe =
  { ok: true; binary: string; shareDir: string; version: string } | { ok: false; reason: string };

function probeRspamd(): RspamdProbe {
  const binary = onPath("rspamd");
  if (!binary) return { ok: false, reason: "no rspamd on PATH (Debian: apt-get install rspamd)" };
  const run = spawnSync(binary, ["--version"], { encoding: "utf8", timeout: 60_000 });
  const version = /version\s+(\S+)/i.exec(run.stdout ?? "")?.[1];
  if (run.status !== 0 || !version)
    return { ok: false, reason: `\`${binary} --version\` failed: ${run.error?.message ?? run.stderr}` };
  // <prefix>/bin/rspamd → <prefix>/share/rspamd, as rspamd's own $SHAREDIR.
  const shareDir = path.resolve(path.dirname(fs.realpathSync(binary)), "..", "share", "rspamd");
  if (!fs.existsSync(path.join(shareDir, TLD_FILE)))
    return { ok: false, reason: `rspamd's ${TLD_FILE} is not in ${shareDir}` };
  return { ok: true, binary, shareDir, version };
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// What is judged, and the verdicts.

/** One message as a receiver gets it over SMTP. */
export interface MessageToJudge {
  /** A name for the message in results and errors. @default its index */
  id?: string;
  /** The RFC 5322 message, lines ending in CRLF. */
  raw: string;
  /** The envelope sender (MAIL FROM), e.g. `abc@psrp.mail.example.com`. */
  mailFrom: string;
  /** The client's HELO/EHLO name. */
  helo: string;
  /** The client's IP address (not loopback: rspamd skips SPF and DMARC for local clients). */
  clientIp: string;
  /** The envelope recipient (RCPT TO). */
  rcptTo: string;
  /** The emulator's DNS port on 127.0.0.1, every receiver's only name server. */
  dnsPort: number;
}

export type SpfResult = "pass" | "fail" | "softfail" | "neutral" | "none" | "permerror" | "temperror";
export type DkimResult = "pass" | "fail" | "none" | "temperror" | "permerror";
export type DmarcResult = "pass" | "fail" | "none" | "temperror" | "permerror";
/** A DMARC record's policy as the receiver applied it (`sp=` for a subdomain). */
export type DmarcPolicy = "none" | "quarantine" | "reject";

/** rspamd's verdicts, read from its symbols. */
export interface RspamdJudgement {
  /** R_SPF_ALLOW pass, _FAIL fail, _SOFTFAIL softfail, _NEUTRAL neutral, _NA none, _PERMFAIL permerror, _DNSFAIL temperror. */
  spf: SpfResult;
  /** R_DKIM_ALLOW pass (any signature), else _TEMPFAIL temperror, _REJECT fail, _PERMFAIL permerror, _NA none. */
  dkim: DkimResult;
  /**
   * DMARC_POLICY_ALLOW pass; _REJECT, _QUARANTINE, _SOFTFAIL (p=none, or sampled out by pct=) fail;
   * DMARC_NA none; DMARC_DNSFAIL temperror; DMARC_BAD_POLICY permerror.
   */
  dmarc: DmarcResult;
  /** The policy rspamd found (the DMARC symbol's last option), or null (no record, bad record). */
  policy: DmarcPolicy | null;
  /** Every symbol, sorted. */
  symbols: string[];
  /** The options of the SPF, DKIM and DMARC symbols (what rspamd says about them). */
  options: Record<string, string[]>;
  /** rspamd's action (`no action`, `add header`, `reject`, …): not a verdict of these tests. */
  action: string;
}

export interface PyspfJudgement {
  result: SpfResult;
  explanation: string;
}

export interface DkimpySignature {
  /** d= and s=, null where the signature has none. */
  domain: string | null;
  selector: string | null;
  result: "pass" | "fail" | "temperror";
  /** dkimpy's error or log message for a signature that does not verify; empty for a pass. */
  reason: string;
}

export interface DkimpyJudgement {
  /** pass when a signature verifies, none without signatures, temperror on a DNS timeout, else fail. */
  result: "pass" | "fail" | "none" | "temperror";
  reason: string;
  signatures: DkimpySignature[];
}

/**
 * DMARC by authheaders (`check_dmarc`, its own evaluation over the public suffix list of Debian's
 * `publicsuffix`), fed by its own pyspf (`check2` on the envelope) and dkimpy (first signature only)
 * results, as `authenticate_message` runs them.
 */
export interface AuthheadersDmarc {
  by: "authheaders";
  result: DmarcResult;
  /** `policy.dmarc` as authheaders reports it; null without a record. */
  policy: DmarcPolicy | null;
  /** The From domain it evaluated (cut at a hyphen, see above). */
  headerFrom: string | null;
  /** Which record it used ("Used From Domain Record", "Used Org Domain Record"). */
  comment: string | null;
  /** Its SPF and DKIM results, the inputs of its DMARC verdict. */
  spf: string | null;
  dkim: string | null;
  /** The Authentication-Results header it would add. */
  header: string | null;
  /** Set when authheaders raised (a DNS timeout, a message it cannot parse): result is then temperror. */
  error?: string;
}

/** How each receiver judged one message. */
export interface Judgement {
  id: string;
  rspamd: RspamdJudgement;
  pyspf: PyspfJudgement;
  dkimpy: DkimpyJudgement;
  dmarc: AuthheadersDmarc;
}

/** The SPF of one identity alone: a MAIL FROM of postmaster@`domain` from `ip`. */
export interface SpfIdentity {
  id?: string;
  domain: string;
  ip: string;
  helo: string;
}

// ---------------------------------------------------------------------------------------------
// The Python receivers.

interface PythonRequest {
  messages?: (MessageToJudge & { id: string })[];
  identities?: (SpfIdentity & { id: string })[];
  sign?: (SignRequest & { id: string })[];
}

interface PythonAnswer {
  unavailable?: string;
  messages: {
    id: string;
    pyspf: PyspfJudgement;
    dkimpy: DkimpyJudgement;
    authheaders: {
      error?: string;
      spf?: string;
      dkim?: string;
      dmarc?: string;
      policy?: string | null;
      headerFrom?: string | null;
      comment?: string | null;
      header?: string;
    };
  }[];
  identities: ({ id: string } & PyspfJudgement)[];
  signed: { id: string; raw: string }[];
}

/** Seconds a DNS lookup may take before the Python receivers call it a temperror: none takes near. */
const PYTHON_DNS_TIMEOUT = 20;

/** Runs receivers-check.py once over a batch, asynchronously (the emulator answers in this process). */
async function runHelper(
  python: string,
  dnsPort: number,
  request: PythonRequest,
  prefix: string[] = [],
): Promise<PythonAnswer> {
  const argv = [...prefix, python, HELPER];
  const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  child.stdin.end(
    JSON.stringify({ server: "127.0.0.1", port: dnsPort, timeout: PYTHON_DNS_TIMEOUT, ...request }),
  );
  const status = await exited;
  if (status !== 0) throw new Error(`receivers-check.py exited with ${status}: ${stderr}`);
  const answer = JSON.parse(stdout) as PythonAnswer;
  if (answer.unavailable) throw new Error(`receivers-check.py: ${answer.unavailable}`);
  return answer;
}

const SPF_RESULTS: SpfResult[] = ["pass", "fail", "softfail", "neutral", "none", "permerror", "temperror"];

function spfResult(result: string, who: string): SpfResult {
  if (!(SPF_RESULTS as string[]).includes(result)) throw new Error(`${who}: unexpected SPF result ${result}`);
  return result as SpfResult;
}

function dmarcPolicy(policy: string | null | undefined): DmarcPolicy | null {
  return policy === "none" || policy === "quarantine" || policy === "reject" ? policy : null;
}

/**
 * pyspf on each identity alone (MAIL FROM postmaster@domain), one Python process for all; `prefix`
 * goes before its argv (a tracer).
 */
export async function pyspfIdentities(
  python: string,
  dnsPort: number,
  identities: SpfIdentity[],
  prefix: string[] = [],
): Promise<(PyspfJudgement & { id: string })[]> {
  const withIds = identities.map((identity, index) => ({ ...identity, id: identity.id ?? String(index) }));
  const answer = await runHelper(python, dnsPort, { identities: withIds }, prefix);
  return answer.identities.map(({ id, result, explanation }) => ({
    id,
    result: spfResult(result, `pyspf (${id})`),
    explanation,
  }));
}

/** A message to sign with dkimpy (`DKIM.sign`); no DNS is involved. */
export interface SignRequest {
  id?: string;
  /** The message, CRLF line ends. */
  raw: string;
  /** d= */
  domain: string;
  /** s= */
  selector: string;
  /** The RSA private key, PKCS#1 PEM (`-----BEGIN RSA PRIVATE KEY-----`), as dkimpy reads it. */
  privateKeyPem: string;
  /** c= @default "relaxed/relaxed" */
  canonicalization?: "relaxed/relaxed" | "relaxed/simple" | "simple/simple" | "simple/relaxed";
  /** h=, lowercase names. @default dkimpy's (From, To, Subject, Date, Message-ID, … present or not) */
  headers?: string[];
}

/** Each message signed by dkimpy: the DKIM-Signature field put on top, one Python process for all. */
export async function dkimpySign(python: string, requests: SignRequest[]): Promise<string[]> {
  const withIds = requests.map((request, index) => ({ ...request, id: request.id ?? String(index) }));
  // Signing makes no DNS query; the port is never used.
  const answer = await runHelper(python, 9, { sign: withIds });
  return answer.signed.map(({ raw }) => raw);
}

// ---------------------------------------------------------------------------------------------
// rspamd.

const TLD_FILE = "effective_tld_names.dat";

/**
 * Modules turned off: those that reach other hosts (RBLs, fuzzy storage, maps on maps.rspamd.com,
 * updates), need Redis, or look at names outside the emulator's zones; none of them touches the
 * SPF, DKIM or DMARC verdicts.
 */
const MODULES_OFF = [
  "antivirus",
  "arc",
  "asn",
  "aws_s3",
  "bimi",
  "clickhouse",
  "dcc",
  "dkim_signing",
  "elastic",
  "emails",
  "external_relay",
  "external_services",
  "force_actions",
  "forged_recipients",
  "fuzzy_check",
  "greylist",
  "hfilter",
  "history_redis",
  "http_headers",
  "maillist",
  "metadata_exporter",
  "metric_exporter",
  "mid",
  "milter_headers",
  "mime_types",
  "multimap",
  "mx_check",
  "neural",
  "once_received",
  "p0f",
  "phishing",
  "ratelimit",
  "rbl",
  "replies",
  "reputation",
  "rspamd_update",
  "spamassassin",
  "spamtrap",
  "surbl",
  "trie",
  "url_redirector",
  "whitelist",
];

/** The public suffix list's rules for these TLDs only (see the note at the top). */
const TLDS_KEPT = ["com", "net", "org"];

function rspamdConfig(port: number): string {
  return `# A private rspamd for tests/support/receivers.ts: generated, removed when it stops.
.include "$CONFDIR/common.conf"
options {
  pidfile = "$RUNDIR/rspamd.pid";
  .include "$CONFDIR/options.inc"
  .include(priority=1,duplicate=merge) "$LOCAL_CONFDIR/local.d/options.inc"
}
logging {
  type = "file";
  filename = "$LOGDIR/rspamd.log";
  level = "info";
}
worker "normal" {
  bind_socket = "127.0.0.1:${port}";
  count = 1;
  mime = true;
}
`;
}

function rspamdOptions(dnsHost: string, dnsPort: number, tldFile: string): string {
  return `# Every DNS query to the emulator; no address is local, so every client is checked.
dns {
  nameserver = ["${dnsHost}:${dnsPort}"];
  timeout = 5s;
  retransmits = 3;
}
local_addrs = [];
url_tld = "${tldFile}";
task_timeout = 60s;
`;
}

/** A running private rspamd: one per test file, started in beforeAll, stopped in afterAll. */
export interface Rspamd {
  /** `http://127.0.0.1:<port>` of its normal worker. */
  url: string;
  port: number;
  /** The DNS port (127.0.0.1) it sends every query to. */
  dnsPort: number;
  /** Its temporary folder (configuration, logs, database), removed by stop(). */
  folder: string;
  /** rspamd's verdicts on one message (`POST /checkv2`). */
  check(message: MessageToJudge): Promise<RspamdJudgement>;
  /** Its log so far. */
  log(): string;
  /** Stops it (SIGTERM, then SIGKILL to its process group if it lingers) and removes its folder. */
  stop(): Promise<void>;
}

export interface RspamdOptions {
  /** The emulator's DNS port. */
  dnsPort: number;
  /** @default "127.0.0.1" */
  dnsHost?: string;
  /** @default the rspamd on PATH */
  binary?: string;
  /** Where rspamd's `effective_tld_names.dat` is. @default <binary>/../../share/rspamd */
  shareDir?: string;
  /** Before rspamd's argv (a tracer, a namespace): `[command, …args]`. @default none */
  prefix?: string[];
  /**
   * Called once rspamd's process is spawned, before it answers: with it an afterAll can stop an
   * instance whose start did not finish (a beforeAll that timed out).
   */
  spawned?: (rspamd: Rspamd) => void;
}

/** rspamd refuses to run as root without these; as another user it runs as that user. */
function userFlags(): string[] {
  return process.getuid?.() === 0 ? ["-i", "-u", "root", "-g", "root"] : [];
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** How often readiness (`GET /ping`) is asked while rspamd starts: a count of tries, not a deadline. */
const PING_INTERVAL_MS = 100;
/** 3 minutes of tries: startup takes seconds; a loaded machine stays far inside this. */
const PING_TRIES = 1800;
/** Attempts with another free port, should one be taken between its probe and rspamd's bind. */
const START_ATTEMPTS = 3;

/**
 * Starts a private rspamd on a free port of 127.0.0.1, its configuration in a new temporary folder,
 * and resolves when it answers `GET /ping`. Every DNS query goes to `dnsHost`:`dnsPort`.
 */
export async function startRspamd(options: RspamdOptions): Promise<Rspamd> {
  const binary = options.binary ?? onPath("rspamd");
  if (!binary) throw new Error("no rspamd on PATH");
  const shareDir =
    options.shareDir ?? path.resolve(path.dirname(fs.realpathSync(binary)), "..", "share", "rspamd");
  const failures: string[] = [];
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    const started = await startOnce(binary, shareDir, options);
    if ("rspamd" in started) return started.rspamd;
    failures.push(started.failure);
    if (!started.retry) break;
  }
  throw new Error(`rspamd did not start:\n${failures.join("\n---\n")}`);
}

async function startOnce(
  binary: string,
  shareDir: string,
  options: RspamdOptions,
): Promise<{ rspamd: Rspamd } | { failure: string; retry: boolean }> {
  const folder = await fs.promises.mkdtemp(path.join(os.tmpdir(), "receivers-rspamd-"));
  const dirs = { local: folder, run: path.join(folder, "run"), db: path.join(folder, "db") };
  const logDir = path.join(folder, "log");
  const port = await freePort();
  try {
    for (const dir of [dirs.run, dirs.db, logDir, path.join(folder, "local.d")])
      await fs.promises.mkdir(dir, { recursive: true });
    const tldFile = path.join(folder, TLD_FILE);
    const tlds = await fs.promises.readFile(path.join(shareDir, TLD_FILE), "utf8");
    const kept = new RegExp(`(^|\\.)(${TLDS_KEPT.join("|")})$`);
    await fs.promises.writeFile(
      tldFile,
      tlds
        .split("\n")
        .filter((line) => line.startsWith("//") || kept.test(line.trim()))
        .join("\n"),
    );
    await fs.promises.writeFile(path.join(folder, "rspamd.conf"), rspamdConfig(port));
    await fs.promises.writeFile(
      path.join(folder, "local.d", "options.inc"),
      rspamdOptions(options.dnsHost ?? "127.0.0.1", options.dnsPort, tldFile),
    );
    for (const module of MODULES_OFF)
      await fs.promises.writeFile(path.join(folder, "local.d", `${module}.conf`), "enabled = false;\n");
    // No cache of SPF records or DKIM keys between messages: a test may change a record.
    await fs.promises.writeFile(
      path.join(folder, "local.d", "spf.conf"),
      "spf_cache_size = 0;\nmin_cache_ttl = 0;\n",
    );
    await fs.promises.writeFile(path.join(folder, "local.d", "dkim.conf"), "dkim_cache_size = 0;\n");
  } catch (error) {
    await fs.promises.rm(folder, { recursive: true, force: true });
    throw error;
  }

  const argv = [
    ...(options.prefix ?? []),
    binary,
    "-c",
    path.join(folder, "rspamd.conf"),
    `--var=LOCAL_CONFDIR=${dirs.local}`,
    `--var=RUNDIR=${dirs.run}`,
    `--var=DBDIR=${dirs.db}`,
    `--var=LOGDIR=${logDir}`,
    "-f",
    ...userFlags(),
  ];
  // Its own process group, so that stop() can end the workers too should the main process hang.
  const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exit = new Promise<void>((resolve) => {
    child.on("error", (error) => {
      output += `\n${error.message}`;
      exited ??= { code: null, signal: null };
      resolve();
    });
    child.on("exit", (code, signal) => {
      exited = { code, signal };
      resolve();
    });
  });
  const logFile = path.join(logDir, "rspamd.log");
  const log = () => {
    try {
      return fs.readFileSync(logFile, "utf8");
    } catch {
      return "";
    }
  };
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      if (!exited && child.pid !== undefined) {
        const group = child.pid;
        // rspamd's main process ends its workers on SIGTERM, and a prefix (a tracer) ends with it;
        // without /proc's children lists, the whole group gets it. Should it linger, SIGKILL.
        const main = options.prefix?.length ? rspamdBelow(group) : group;
        signalPid(main ?? -group, "SIGTERM");
        const lingering = setTimeout(() => signalPid(-group, "SIGKILL"), 20_000);
        await exit;
        clearTimeout(lingering);
      }
      await fs.promises.rm(folder, { recursive: true, force: true });
    })());

  const url = `http://127.0.0.1:${port}`;
  const rspamd: Rspamd = {
    url,
    port,
    dnsPort: options.dnsPort,
    folder,
    check: (message) => checkWithRspamd(url, options.dnsPort, message),
    log,
    stop,
  };
  options.spawned?.(rspamd);
  for (let tries = 0; tries < PING_TRIES && !exited && !stopped; tries++) {
    if ((await ping(url)) === "pong") return { rspamd };
    await new Promise((resolve) => setTimeout(resolve, PING_INTERVAL_MS));
  }
  if (stopped) {
    await stopped;
    return { failure: "rspamd was stopped while it started", retry: false };
  }
  const failure = `rspamd (${argv.join(" ")}) ${
    exited ? `exited (${exited.code ?? exited.signal})` : "never answered /ping"
  }\n${output.trim()}\n${tail(log(), 40)}`;
  const portTaken = /bind|address already in use/i.test(output + log());
  await stop();
  return { failure, retry: portTaken };
}

/** rspamd's main process among `pid`'s descendants (a prefix ran it), from /proc; undefined if unknown. */
function rspamdBelow(pid: number): number | undefined {
  let level = [pid];
  for (let depth = 0; depth < 4 && level.length > 0; depth++) {
    const next: number[] = [];
    for (const parent of level) {
      const children = readProc(`/proc/${parent}/task/${parent}/children`);
      if (children === undefined) return undefined;
      for (const candidate of children.split(/\s+/).filter(Boolean).map(Number)) {
        const command = readProc(`/proc/${candidate}/cmdline`) ?? "";
        if (/^rspamd: main process/.test(command) || /(^|\/)rspamd\0/.test(command)) return candidate;
        next.push(candidate);
      }
    }
    level = next;
  }
  return undefined;
}

function readProc(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** A process (a group when negative) started here, by its id. */
function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function tail(text: string, lines: number): string {
  return text.split("\n").slice(-lines).join("\n");
}

/** The answer to GET /ping, or undefined when nothing answers yet. */
function ping(url: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const request = http.get(`${url}/ping`, { timeout: 10_000 }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve(body.trim()));
      response.on("error", () => resolve(undefined));
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(undefined));
  });
}

interface RspamdAnswer {
  action: string;
  symbols: Record<string, { name: string; score: number; options?: string[] }>;
}

/** A request that must not time out: rspamd answers in well under a second, its task limit is 60 s. */
const RSPAMD_REQUEST_TIMEOUT_MS = 120_000;

function postCheck(url: string, message: MessageToJudge): Promise<RspamdAnswer> {
  const body = Buffer.from(message.raw, "utf8");
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}/checkv2`,
      {
        method: "POST",
        timeout: RSPAMD_REQUEST_TIMEOUT_MS,
        headers: {
          "Content-Length": body.length,
          IP: message.clientIp,
          Helo: message.helo,
          From: message.mailFrom,
          Rcpt: message.rcptTo,
          "Queue-Id": message.id ?? "receivers",
        },
      },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => (text += chunk.toString()));
        response.on("end", () => {
          if (response.statusCode !== 200) reject(new Error(`rspamd: HTTP ${response.statusCode}: ${text}`));
          else {
            try {
              resolve(JSON.parse(text) as RspamdAnswer);
            } catch (error) {
              reject(error);
            }
          }
        });
        response.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new Error("rspamd did not answer")));
    request.on("error", reject);
    request.end(body);
  });
}

const RSPAMD_SPF: [string, SpfResult][] = [
  ["R_SPF_ALLOW", "pass"],
  ["R_SPF_FAIL", "fail"],
  ["R_SPF_SOFTFAIL", "softfail"],
  ["R_SPF_NEUTRAL", "neutral"],
  ["R_SPF_DNSFAIL", "temperror"],
  ["R_SPF_PERMFAIL", "permerror"],
  ["R_SPF_NA", "none"],
];

/** In this order: one passing signature is a pass, whatever the others. */
const RSPAMD_DKIM: [string, DkimResult][] = [
  ["R_DKIM_ALLOW", "pass"],
  ["R_DKIM_TEMPFAIL", "temperror"],
  ["R_DKIM_REJECT", "fail"],
  ["R_DKIM_PERMFAIL", "permerror"],
  ["R_DKIM_NA", "none"],
];

const RSPAMD_DMARC: [string, DmarcResult][] = [
  ["DMARC_POLICY_ALLOW", "pass"],
  ["DMARC_POLICY_ALLOW_WITH_FAILURES", "pass"],
  ["DMARC_POLICY_REJECT", "fail"],
  ["DMARC_POLICY_QUARANTINE", "fail"],
  ["DMARC_POLICY_SOFTFAIL", "fail"],
  ["DMARC_DNSFAIL", "temperror"],
  ["DMARC_BAD_POLICY", "permerror"],
  ["DMARC_NA", "none"],
];

function verdict<T>(symbols: RspamdAnswer["symbols"], table: [string, T][], what: string): [T, string] {
  const found = table.find(([symbol]) => symbol in symbols);
  if (!found)
    throw new Error(
      `rspamd gave no ${what} symbol (is the client local?): ${Object.keys(symbols).sort().join(" ")}`,
    );
  return [found[1], found[0]];
}

async function checkWithRspamd(
  url: string,
  dnsPort: number,
  message: MessageToJudge,
): Promise<RspamdJudgement> {
  if (message.dnsPort !== dnsPort)
    throw new Error(`this rspamd sends DNS queries to port ${dnsPort}, the message says ${message.dnsPort}`);
  const answer = await postCheck(url, message);
  const symbols = answer.symbols ?? {};
  const [spf] = verdict(symbols, RSPAMD_SPF, "SPF");
  const [dkim] = verdict(symbols, RSPAMD_DKIM, "DKIM");
  const [dmarc, dmarcSymbol] = verdict(symbols, RSPAMD_DMARC, "DMARC");
  const dmarcOptions = symbols[dmarcSymbol].options ?? [];
  const policy =
    dmarcSymbol === "DMARC_NA" || dmarcSymbol === "DMARC_BAD_POLICY" ? null : dmarcPolicy(dmarcOptions[1]);
  const options = Object.fromEntries(
    Object.values(symbols)
      .filter(({ name }) => /^(R_SPF_|R_DKIM_|DMARC_)/.test(name))
      .map(({ name, options: given }) => [name, given ?? []]),
  );
  return { spf, dkim, dmarc, policy, symbols: Object.keys(symbols).sort(), options, action: answer.action };
}

// ---------------------------------------------------------------------------------------------
// All receivers together.

/** The receivers of one test file: rspamd running, and the Python that runs the others. */
export interface Receivers {
  python: string;
  /** Before the Python helper's argv (a tracer). @default none */
  pythonPrefix?: string[];
  rspamd: Rspamd;
}

/** Every receiver's verdicts on each message: rspamd over HTTP, the Python ones in one process. */
export async function judgeMessages(receivers: Receivers, messages: MessageToJudge[]): Promise<Judgement[]> {
  const withIds = messages.map((message, index) => ({ ...message, id: message.id ?? String(index) }));
  const ports = new Set(withIds.map((message) => message.dnsPort));
  if (ports.size > 1) throw new Error(`one DNS port per batch, not ${[...ports].join(", ")}`);
  if (withIds.length === 0) return [];
  const [python, rspamd] = await Promise.all([
    runHelper(receivers.python, withIds[0].dnsPort, { messages: withIds }, receivers.pythonPrefix),
    inBatches(withIds, 8, (message) => receivers.rspamd.check(message)),
  ]);
  return withIds.map((message, index) => {
    const theirs = python.messages[index];
    if (theirs.id !== message.id)
      throw new Error(`receivers-check.py answered ${theirs.id} for ${message.id}`);
    const ah = theirs.authheaders;
    const dmarc: AuthheadersDmarc = ah.error
      ? {
          by: "authheaders",
          result: "temperror",
          policy: null,
          headerFrom: null,
          comment: null,
          spf: null,
          dkim: null,
          header: null,
          error: ah.error,
        }
      : {
          by: "authheaders",
          result: (ah.dmarc ?? "none") as DmarcResult,
          policy: dmarcPolicy(ah.policy),
          headerFrom: ah.headerFrom ?? null,
          comment: ah.comment ?? null,
          spf: ah.spf ?? null,
          dkim: ah.dkim ?? null,
          header: ah.header ?? null,
        };
    return {
      id: message.id,
      rspamd: rspamd[index],
      pyspf: {
        result: spfResult(theirs.pyspf.result, `pyspf (${message.id})`),
        explanation: theirs.pyspf.explanation,
      },
      dkimpy: theirs.dkimpy,
      dmarc,
    };
  });
}

/** Every receiver's verdicts on one message. */
export async function judgeMessage(receivers: Receivers, message: MessageToJudge): Promise<Judgement> {
  return (await judgeMessages(receivers, [message]))[0];
}

async function inBatches<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size)
    results.push(...(await Promise.all(items.slice(start, start + size).map(work))));
  return results;
}

/** Commands put before the receivers' argv (a tracer such as strace). */
export interface ReceiverPrefixes {
  rspamd?: string[];
  python?: string[];
}

/**
 * For a test file: starts rspamd in beforeAll (after the emulator's, so register this after
 * `useEmulator()`), with every query to `dnsPort()`, and stops it and removes its folder in
 * afterAll, whatever the tests did. Give `here` from receiversHere(); when it is not available
 * nothing starts (the file's tests are skipped).
 */
export function useReceivers(
  here: ReceiversHere,
  dnsPort: () => number,
  prefixes: ReceiverPrefixes = {},
): () => Receivers {
  let rspamd: Rspamd | undefined;
  let spawned: Rspamd | undefined;
  beforeAll(async () => {
    if (!here.available) return;
    rspamd = await startRspamd({
      dnsPort: dnsPort(),
      binary: here.rspamd.binary,
      shareDir: here.rspamd.shareDir,
      prefix: prefixes.rspamd,
      spawned: (instance) => (spawned = instance),
    });
  }, 200_000);
  afterAll(async () => {
    // The one that answered, or one still starting when beforeAll gave up.
    await (rspamd ?? spawned)?.stop();
  }, 60_000);
  return () => {
    if (!here.available) throw new Error(`no receivers: ${here.reason}`);
    if (!rspamd) throw new Error("rspamd has not started");
    return { python: here.python, pythonPrefix: prefixes.python, rspamd };
  };
}
