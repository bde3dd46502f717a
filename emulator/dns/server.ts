import * as dgram from "node:dgram";
import * as net from "node:net";
import { Store } from "../store/store";
import type { ZoneData } from "./lookup";
import { answerMessage } from "./message";
import type { NameserverView } from "./nameserver-view";
import { ServiceDns, withServiceRecords } from "./service-records";
import { TcpFrameReader, frameTcpMessage } from "./tcp-framing";

/**
 * An authoritative DNS server for the Cloudflare stand-in's zones, on UDP and TCP at one port.
 * The domain check and node's resolver (c-ares) query it; c-ares retries over TCP when a UDP
 * answer comes back truncated, so both transports share the port.
 */

export interface DnsServerOptions {
  store: Store;
  /** The installation's DNS settings: its own records are answered too (service-records.ts). */
  dns?: ServiceDns;
  host: string;
  /** 0 picks a port free for both UDP and TCP. */
  port: number;
  /**
   * What this server answers from, when it may lag behind the zones (one of several name
   * servers, held back). @default the live zones
   */
  view?: NameserverView;
}

export interface RunningDnsServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

/** Idle TCP connections are closed after this long (RFC 7766 suggests seconds). */
const TCP_IDLE_MS = 10_000;
const PORT_ATTEMPTS = 5;

/**
 * The zones as the DNS serves them now: the stand-in's records and the installation's own
 * (service-records.ts), its DKIM key once the state holds one.
 */
export function liveZoneData(store: Store, dns: ServiceDns | undefined): ZoneData {
  return dns === undefined
    ? store.state.cloudflare
    : withServiceRecords(store.state.cloudflare, dns, store.state.signingKey?.publicKey);
}

export async function startDnsServer(options: DnsServerOptions): Promise<RunningDnsServer> {
  const view = options.view;
  const zoneData = view ? () => view.current() : () => liveZoneData(options.store, options.dns);
  for (let attempt = 1; ; attempt++) {
    const udp = await bindUdp(options.host, options.port, zoneData);
    const port = udp.address().port;
    try {
      const tcp = await listenTcp(options.host, port, zoneData);
      // The address bound (`localhost` resolved), which clients can ask without a lookup.
      return { host: udp.address().address, port, close: () => closeBoth(udp, tcp) };
    } catch (error) {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      // With port 0 the UDP port may be taken for TCP: pick another one.
      if (options.port !== 0 || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

type ZoneDataSource = () => ZoneData;

function bindUdp(host: string, port: number, zoneData: ZoneDataSource): Promise<dgram.Socket> {
  const socket = dgram.createSocket(net.isIPv6(host) ? "udp6" : "udp4");
  socket.on("message", (message, remote) => {
    const answer = safeAnswer(message, zoneData, "udp");
    if (answer) socket.send(answer, remote.port, remote.address, () => undefined);
  });
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, host, () => {
      socket.off("error", reject);
      // A send to a vanished client must not crash the emulator.
      socket.on("error", () => undefined);
      resolve(socket);
    });
  });
}

interface TcpServer {
  server: net.Server;
  sockets: Set<net.Socket>;
}

function listenTcp(host: string, port: number, zoneData: ZoneDataSource): Promise<TcpServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    const reader = new TcpFrameReader();
    socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
    socket.on("error", () => socket.destroy());
    socket.on("close", () => sockets.delete(socket));
    socket.on("data", (chunk: Buffer) => {
      for (const message of reader.push(chunk)) {
        const answer = safeAnswer(message, zoneData, "tcp");
        if (answer && socket.writable) socket.write(frameTcpMessage(answer));
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve({ server, sockets });
    });
  });
}

/** Never lets a query, however malformed, throw out of a socket handler. */
function safeAnswer(message: Buffer, zoneData: ZoneDataSource, transport: "udp" | "tcp"): Buffer | undefined {
  try {
    return answerMessage(message, zoneData(), transport);
  } catch {
    return undefined;
  }
}

async function closeBoth(udp: dgram.Socket, tcp: TcpServer): Promise<void> {
  const udpClosed = new Promise<void>((resolve) => udp.close(() => resolve()));
  const tcpClosed = new Promise<void>((resolve) => tcp.server.close(() => resolve()));
  for (const socket of tcp.sockets) socket.destroy();
  await Promise.all([udpClosed, tcpClosed]);
}
