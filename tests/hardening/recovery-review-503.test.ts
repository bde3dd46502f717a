import * as http from "node:http";
import { domainProvider } from "../../provider/dynamic";
import { useEmulator, uniqueDomain } from "../support/emulator";
import { configureForUrl, failure } from "../support/providers";
import { listenOnLoopback } from "../support/scripted-server";

/**
 * Review of f139362 (issue 36): a 503 is taken to prove that nothing was done
 * (execute.ts: "A 429 or 503 was refused before any work"), so a create answered 503 is sent again
 * with no lookup, and the refusal of that resend is then read as "the name was taken by someone
 * else". But a 503 is also what common front ends answer *after* the service did the work: Envoy
 * (Istio, many ingresses) answers 503 "upstream connect error or disconnect/reset before headers.
 * reset reason: connection termination" when the backend closes the connection after handling the
 * request, and Heroku's router answers 503 (H12/H13) for a request the app goes on to finish.
 *
 * Here a loopback proxy in front of the emulator lets the first `domains/create` through, then
 * answers 503 as Envoy does. The domain exists and only this stack ever asked for it, yet the
 * Domain provider says "already exists ... and this stack did not create it": the very claim the
 * commit says it never makes after a lost answer (it should say the answer was lost and name the
 * object, AnswerLostObjectExists). FAILS against f139362.
 */
describe("a 503 from a front end after the service made the domain", () => {
  const emulator = useEmulator();
  let proxy: { url: string; close: () => Promise<void> };
  let faulted = 0;
  beforeAll(async () => {
    const target = new URL(emulator().emailApi.url);
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const upstream = http.request(
          {
            host: target.hostname,
            port: target.port,
            path: req.url,
            method: req.method,
            headers: req.headers,
          },
          (answer) => {
            const body: Buffer[] = [];
            answer.on("data", (c: Buffer) => body.push(c));
            answer.on("end", () => {
              if (req.url?.endsWith("/domains/create") && faulted === 0) {
                faulted++;
                res.writeHead(503, { "content-type": "text/plain" });
                res.end(
                  "upstream connect error or disconnect/reset before headers. reset reason: connection termination",
                );
                return;
              }
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(Buffer.concat(body));
            });
          },
        );
        upstream.end(Buffer.concat(chunks));
      });
    });
    proxy = await listenOnLoopback(server);
  });
  afterAll(() => proxy.close());

  it("does not tell the user that a domain only this stack asked for is someone else's", async () => {
    await configureForUrl(proxy.url, [domainProvider], emulator().emailApi.apiKey);
    const name = uniqueDomain("p503");
    emulator().requests.clear();
    const error = await failure(domainProvider.create({ name, adopt: false, __provider: "text" }));
    const held = emulator().state.domains.filter((d) => d.name === name);
    expect(held).toHaveLength(1);
    // Only this call ever created that name on the service:
    expect(
      emulator()
        .requests.all()
        .filter((e) => e.effect?.created),
    ).toHaveLength(1);
    expect(error.message).not.toContain("this stack did not create it");
    expect(error.message).toContain("answer to create was lost");
  });
});
