import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { run } from "../../packaging/commands";
import { destinations, loopbackOnly, staysHere, straceIn } from "../support/offline";

/**
 * The kit reaches no network (docs/testing.md): the built kit, as a user's test runs it
 * (`programs/offline-kit-run.js`, plain Node), in a process whose network namespace has loopback
 * only, traced by strace. A preview and a live run of Domains that merge into SPF records
 * including a name only the emulator's DNS serves, and getDomain: the lookup counts are exact
 * (the machine's resolver would make them temperrors here, and elsewhere the public DNS, which
 * answers NXDOMAIN, permerrors), and every connection and datagram goes to 127.0.0.1. Skipped,
 * saying why, where no such namespace can be made; the trace's check where strace cannot run.
 */

const ROOT = path.join(__dirname, "..", "..");
const SCRIPT = path.join(__dirname, "programs", "offline-kit-run.js");
const namespace = loopbackOnly();
const traceFile = path.join(os.tmpdir(), `no-network-${process.pid}.strace`);
const strace = namespace.available ? straceIn(namespace.prefix, traceFile) : namespace;
// CI that installs strace and iproute2 as root sets this, so a detection slip fails instead of skipping.
if (process.env.EMAIL_DELIVERY_OFFLINE_TEST === "require" && !strace.available)
  throw new Error(`EMAIL_DELIVERY_OFFLINE_TEST=require, but ${strace.reason}`);
if (!namespace.available) console.warn(`No-network test skipped: ${namespace.reason}.`);
else if (!strace.available) console.warn(`No-network test: the trace is not checked: ${strace.reason}.`);

interface RunSummary {
  errors: string[];
  programLogs: string[];
  providerLogs: string[];
  outputs: Record<string, unknown>;
}
let result: { preview: RunSummary; live: RunSummary; spf: string[] };
let trace = "";

(namespace.available ? describe : describe.skip)(
  `the kit in a process with loopback only${namespace.available ? "" : ` — skipped: ${namespace.reason}`}`,
  () => {
    beforeAll(async () => {
      if (!namespace.available) return;
      const prefix = strace.available ? strace.prefix : namespace.prefix;
      const output = await run(prefix[0], [...prefix.slice(1), process.execPath, SCRIPT], {
        cwd: ROOT,
        timeoutMs: 60_000,
      });
      result = JSON.parse(output) as typeof result;
      if (strace.available) trace = await fs.readFile(traceFile, "utf8");
    }, 90_000);
    afterAll(() => fs.rm(traceFile, { force: true }));

    it("counts the SPF lookups of a merge through the emulator's DNS: exact, with no warning", () => {
      const warnings = (run: RunSummary) =>
        [...run.programLogs, ...run.providerLogs].filter((line) => !line.startsWith("info:"));
      // 9 lookups fit (the service's include makes 10), 10 do not: the count is exact.
      expect(result.preview.errors).toEqual([
        expect.stringMatching(
          /^Domain full: 1 record conflicts with what the zone already holds:\n {2}- cloudflare\.existingRecords\.spf \("merge"\): cannot merge into the SPF record at full\.example\.com: it already needs 10 DNS lookups, and the service's include makes 11, /,
        ),
      ]);
      expect(warnings(result.preview)).toEqual([]);
      expect(result.live.errors).toEqual([]);
      expect(warnings(result.live)).toEqual([]);
      expect(result.live.outputs).toEqual({ verified: true, found: ["fits.example.com", "OK"] });
      expect(result.spf).toEqual([
        "v=spf1 include:_spf.only-in-emulator.example.com include:spf.postal.example.com ~all",
      ]);
    });

    (strace.available ? it : it.skip)(
      `connects and sends to 127.0.0.1 only${strace.available ? "" : ` — skipped: ${strace.reason}`}`,
      () => {
        const seen = destinations(trace);
        // The trace is read: the runs connected to the emulator's servers and its DNS answered.
        expect(
          seen.filter((destination) => destination.startsWith("AF_INET 127.0.0.1:")).length,
        ).toBeGreaterThan(10);
        expect(seen.filter((destination) => !staysHere(destination))).toEqual([]);
      },
    );
  },
);

describe("destinations, from strace's output", () => {
  it("reads connects and datagrams of every process, IPv4 and IPv6, and families without an address", () => {
    const trace = [
      '5443  connect(27, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = -1 ENETUNREACH (Network is unreachable)',
      '5443  connect(21, {sa_family=AF_INET, sin_port=htons(7700), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 EINPROGRESS (Operation now in progress)',
      '5727  sendmsg(18, {msg_name={sa_family=AF_INET, sin_port=htons(50205), sin_addr=inet_addr("127.0.0.1")}, msg_namelen=16, msg_iov=[{iov_base="H\\343", iov_len=147}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 147',
      '5443  sendto(35, "\\203R\\1\\0", 34, 0, NULL, 0) = 34',
      '5444  connect(5, {sa_family=AF_INET6, sin6_port=htons(53), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:4860:4860::8888", &sin6_addr), sin6_scope_id=0}, 28 <unfinished ...>',
      '5445  connect(6, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)',
      "5446  sendto(7, [{nlmsg_len=20, nlmsg_type=RTM_GETADDR}], 20, 0, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, 12) = 20",
      "5443  +++ exited with 0 +++",
    ].join("\n");
    const seen = destinations(trace);
    expect(seen).toEqual([
      "AF_INET 10.255.255.53:53",
      "AF_INET 127.0.0.1:7700",
      "AF_INET 127.0.0.1:50205",
      "AF_INET6 [2001:4860:4860::8888]:53",
      "AF_UNIX",
      "AF_NETLINK",
    ]);
    expect(seen.filter((destination) => !staysHere(destination))).toEqual([
      "AF_INET 10.255.255.53:53",
      "AF_INET6 [2001:4860:4860::8888]:53",
    ]);
  });
});
