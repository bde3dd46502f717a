import * as http from "node:http";
import { envelope, listenOnLoopback } from "./scripted-server";

/** What a list request asked for. */
export interface PageRequest {
  page?: number;
  per_page?: number;
}

/** One list request as the fork received it: the operation, its body, and how many came before. */
export interface ListRequest {
  path: string;
  body: PageRequest;
  index: number;
}

/**
 * A fork of the service whose list answers are built per request: `answer` gives the envelope's
 * `data`, or undefined to refuse (HTTP 400, e.g. to stop a client that would loop). On 127.0.0.1,
 * for the paging forms the emulator does not produce.
 */
export async function startListFork(answer: (request: ListRequest) => unknown) {
  const received: ListRequest[] = [];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString()));
    req.on("end", () => {
      const request = {
        path: (req.url ?? "").replace("/api/v1/", ""),
        body: (text ? JSON.parse(text) : {}) as PageRequest,
        index: received.length,
      };
      received.push(request);
      const data = answer(request);
      if (data === undefined) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(envelope({ code: "Stop", message: "the test server refused this request" }, "error"));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(envelope(data));
    });
  });
  return { ...(await listenOnLoopback(server)), received };
}
