import { isIPv4, isIPv6 } from "node:net";

/**
 * The one check of a DNS server's address, wherever the package or its emulator takes one: the
 * SPF checks' resolver, a verification's nameservers, the doctor's `--dns`, the emulator's
 * resolver. Pure and without dependencies, so the emulator can share it (it imports nothing else
 * from `provider/`): both then refuse the same addresses.
 */

/**
 * Why `address` is not a DNS server to send queries to, if it is not: an IPv4
 * address or an IPv6 one (in brackets when a port follows), with a port from 1 to 65535 after a
 * colon when it is not 53 (`127.0.0.1:7753`, `[::1]:5353`). A name is refused: finding its
 * address would ask the machine's resolver. Checked here rather than by node:dns's `setServers`,
 * which takes port 99999 as another port and aborts the process on port 0.
 */
export function dnsServerProblem(address: string): string | undefined {
  const bracketed = /^\[([^\]]*)\](?::(\d{1,5}))?$/.exec(address); // IPv6, a port or not
  const withPort = /^([^:]*):(\d{1,5})$/.exec(address); // IPv4 and a port
  const port = (bracketed ?? withPort)?.[2];
  const valid =
    (bracketed
      ? isIPv6(bracketed[1])
      : withPort
        ? isIPv4(withPort[1])
        : isIPv4(address) || isIPv6(address)) &&
    (port === undefined || (Number(port) >= 1 && Number(port) <= 65535));
  return valid
    ? undefined
    : `must be the IP address of a DNS server, with its port when not 53 (e.g. 127.0.0.1:7753 or [::1]:5353), not ${JSON.stringify(address)}`;
}

/**
 * A comma-separated list of DNS servers (`emailDelivery:dnsNameservers`, the doctor's `--dns`):
 * the servers, or why the list is not one (an empty entry, or an address `dnsServerProblem`
 * refuses). Spaces around entries are allowed.
 */
export function parseDnsServers(value: string): { servers: string[] } | { problem: string } {
  const servers = value.split(",").map((server) => server.trim());
  if (servers.some((server) => server === ""))
    return {
      problem: `must list DNS servers as IP[:PORT], comma-separated, not ${JSON.stringify(value)}`,
    };
  for (const server of servers) {
    const problem = dnsServerProblem(server);
    if (problem) return { problem };
  }
  return { servers };
}
