import { spawnSync } from "node:child_process";

/**
 * A process with no network but loopback (a network namespace of its own, `lo` up), and strace to
 * see where it sends: for the test that the kit reaches nothing else (tests/testing/no-network).
 */

export type Availability = { available: true; prefix: string[] } | { available: false; reason: string };

/** Brings up loopback in the new namespace, then runs the command given after it. */
const LOOPBACK_UP = 'ip link set lo up && exec "$@"';

/**
 * How to run a command with loopback only: `unshare -n` as root, else `unshare -rn` (a user
 * namespace of its own, where unprivileged user namespaces are allowed); or why neither works.
 */
export function loopbackOnly(): Availability {
  const problems: string[] = [];
  for (const flags of ["-n", "-rn"]) {
    const prefix = ["unshare", flags, "sh", "-c", LOOPBACK_UP, "sh"];
    const probe = spawnSync(prefix[0], [...prefix.slice(1), "true"], { encoding: "utf8", timeout: 30_000 });
    if (probe.status === 0) return { available: true, prefix };
    problems.push(
      `\`unshare ${flags}\`: ${(probe.error?.message ?? probe.stderr).trim() || `exit ${probe.status}`}`,
    );
  }
  return { available: false, reason: `no network namespace with loopback only (${problems.join("; ")})` };
}

/** The syscalls that name where a process sends: a connection, or a datagram with its address. */
export const TRACED = "connect,sendto,sendmsg,sendmmsg";

/** strace following every process and thread, inside `namespace`; or why it cannot run there. */
export function straceIn(namespace: string[], output: string): Availability {
  const prefix = [...namespace, "strace", "-f", "-e", `trace=${TRACED}`, "-o", output];
  const probe = spawnSync(prefix[0], [...prefix.slice(1), "true"], { encoding: "utf8", timeout: 30_000 });
  if (probe.status === 0) return { available: true, prefix };
  const why = (probe.error?.message ?? probe.stderr).trim() || `exit ${probe.status}`;
  return { available: false, reason: `strace cannot trace here (${why}; Debian: apt-get install strace)` };
}

/**
 * Every address a traced process connected or sent to, from strace's output (`-f`, the syscalls
 * of `TRACED`), as `AF_INET 127.0.0.1:7700`, `AF_INET6 [::1]:53` or the family alone for those
 * without a network address (`AF_UNIX`, `AF_NETLINK`, `AF_UNSPEC`). A datagram sent without an
 * address goes where its socket was connected, which the connect named.
 */
export function destinations(trace: string): string[] {
  const found: string[] = [];
  for (const line of trace.split("\n")) {
    if (!/^(?:\d+\s+)?(?:connect|sendto|sendmsg|sendmmsg)\(/.test(line)) continue;
    for (const match of line.matchAll(/\{sa_family=(AF_[A-Z0-9]+)([^}]*)\}/g)) {
      const [, family, rest] = match;
      const port = /sin6?_port=htons\((\d+)\)/.exec(rest)?.[1];
      const v4 = /sin_addr=inet_addr\("([^"]+)"\)/.exec(rest)?.[1];
      const v6 = /inet_pton\(AF_INET6, "([^"]+)"/.exec(rest)?.[1];
      if (v4 !== undefined) found.push(`${family} ${v4}:${port}`);
      else if (v6 !== undefined) found.push(`${family} [${v6}]:${port}`);
      else found.push(family);
    }
  }
  return found;
}

/** Whether a destination stays on this machine's IPv4 loopback (or names no network address). */
export const staysHere = (destination: string): boolean =>
  /^AF_INET 127\.0\.0\.1:\d+$/.test(destination) || /^AF_(UNIX|LOCAL|NETLINK|UNSPEC)$/.test(destination);
