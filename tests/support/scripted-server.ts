import * as http from "node:http";
import { AddressInfo } from "node:net";

/** What the scripted server does with one request. */
export type Script =
  | { status: number; body: string; headers?: Record<string, string> }
  | { drop: true }
  | { hang: true }
  /** Sends the status line, headers and the first bytes of a body that never ends. */
  | { hangInBody: true };

/**
 * A real HTTP server on 127.0.0.1 that answers from a queue of scripted replies, for the forms of
 * failure other deployments (forks, proxies, broken networks) give and the emulator does not.
 * The last script repeats once the queue is down to one.
 */
export async function startScriptedServer(scripts: Script[]) {
  const queue = [...scripts];
  const received: { path: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() });
      const script = queue.length > 1 ? queue.shift()! : queue[0];
      if ("drop" in script) return req.socket.destroy();
      if ("hang" in script) return;
      if ("hangInBody" in script) {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"success":true,"result":');
        return;
      }
      res.writeHead(script.status, script.headers ?? {});
      res.end(script.body);
    });
  });
  return { ...(await listenOnLoopback(server)), received };
}

/** Starts `server` on 127.0.0.1 on a free port: its URL, and how to stop it (connections too). */
export async function listenOnLoopback(
  server: http.Server,
): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export const envelope = (data: unknown, status = "success") =>
  JSON.stringify({ status, time: 0.001, flags: {}, data });
