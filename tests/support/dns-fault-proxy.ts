import * as dgram from "node:dgram";
import * as net from "node:net";
import * as dnsPacket from "dns-packet";
import { frameTcpMessage, TcpFrameReader } from "../../emulator/dns/tcp-framing";

/**
 * A DNS server on 127.0.0.1 (a free port, UDP and TCP) that passes queries on to another one on
 * 127.0.0.1 (the emulator's, same transport), except for names at or under those given, which
 * fail without a wait: `servfail` names get a SERVFAIL answer; `unanswerable` names get an empty
 * UDP answer marked truncated, and the TCP connection that asks again is closed unanswered, so
 * the lookup fails at once (node:dns: ECONNREFUSED or similar; py3dns: a TCP fallback error), as
 * with a server that cannot answer, without a timeout to wait for. Nothing is sent anywhere but
 * the upstream server.
 */
export interface DnsFaultProxy {
  address: string;
  port: number;
  /** Queries seen, as `TYPE name`. */
  queries: string[];
  close(): Promise<void>;
}

interface Options {
  upstreamPort: number;
  servfail?: string[];
  unanswerable?: string[];
}

export async function startDnsFaultProxy(options: Options): Promise<DnsFaultProxy> {
  const queries: string[] = [];
  /** How a query is handled: passed on, or failed. */
  const decide = (
    message: Buffer,
  ): { query?: dnsPacket.DecodedPacket; fail?: "servfail" | "unanswerable" } => {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return {};
    }
    const question = query.questions?.[0];
    const name = (question?.name ?? "").toLowerCase().replace(/\.$/, "");
    queries.push(`${question?.type} ${name}`);
    const under = (list: string[] = []) =>
      list.some((parent) => name === parent || name.endsWith(`.${parent}`));
    return {
      query,
      fail: under(options.servfail) ? "servfail" : under(options.unanswerable) ? "unanswerable" : undefined,
    };
  };
  for (let attempt = 1; ; attempt++) {
    const udp = await bindUdp(options, decide);
    const port = udp.address().port;
    const sockets = new Set<net.Socket>();
    const tcp = net.createServer((socket) => forwardTcp(socket, options, decide, sockets));
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once("error", reject);
        tcp.listen(port, "127.0.0.1", resolve);
      });
    } catch (error) {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      if (attempt >= 5) throw error;
      continue; // that port is taken for TCP: another one
    }
    return {
      address: `127.0.0.1:${port}`,
      port,
      queries,
      close: async () => {
        for (const socket of sockets) socket.destroy();
        await Promise.all([
          new Promise<void>((resolve) => udp.close(() => resolve())),
          new Promise<void>((resolve) => tcp.close(() => resolve())),
        ]);
      },
    };
  }
}

type Decide = (message: Buffer) => { query?: dnsPacket.DecodedPacket; fail?: "servfail" | "unanswerable" };

function failure(query: dnsPacket.DecodedPacket, fail: "servfail" | "unanswerable"): Buffer {
  const flags = fail === "servfail" ? dnsPacket.RECURSION_DESIRED | 2 : dnsPacket.TRUNCATED_RESPONSE;
  return dnsPacket.encode({ type: "response", id: query.id, flags, questions: query.questions });
}

async function bindUdp(options: Options, decide: Decide): Promise<dgram.Socket> {
  const udp = dgram.createSocket("udp4");
  udp.on("message", (message, client) => {
    const { query, fail } = decide(message);
    if (!query) return;
    if (fail) return udp.send(failure(query, fail), client.port, client.address);
    const upstream = dgram.createSocket("udp4");
    upstream.on("message", (answer) => {
      udp.send(answer, client.port, client.address);
      upstream.close();
    });
    upstream.send(message, options.upstreamPort, "127.0.0.1");
  });
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
  return udp;
}

/** Each framed query on `socket` goes to the upstream server over one TCP connection, or fails. */
function forwardTcp(socket: net.Socket, options: Options, decide: Decide, sockets: Set<net.Socket>): void {
  const upstream = net.connect(options.upstreamPort, "127.0.0.1");
  for (const end of [socket, upstream]) {
    sockets.add(end);
    end.on("error", () => undefined);
    end.on("close", () => {
      sockets.delete(end);
      socket.destroy();
      upstream.destroy();
    });
  }
  const reader = new TcpFrameReader();
  socket.on("data", (chunk: Buffer) => {
    for (const message of reader.push(chunk)) {
      const { query, fail } = decide(message);
      if (!query) continue;
      if (fail === "unanswerable") return socket.destroy();
      if (fail) socket.write(frameTcpMessage(failure(query, fail)));
      else upstream.write(frameTcpMessage(message));
    }
  });
  upstream.on("data", (chunk: Buffer) => socket.write(chunk));
}
