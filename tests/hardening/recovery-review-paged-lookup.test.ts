import * as http from "node:http";
import { domainProvider } from "../../provider/dynamic";
import { configureForUrl, failure } from "../support/providers";
import { envelope, listenOnLoopback } from "../support/scripted-server";

/**
 * Review of f139362 (issue 36): the lookup after a lost answer on a busy, paged deployment.
 *
 * A fork that pages `domains/list` (pages.ts) while other parties keep creating domains: every
 * read of the list sees the total grow between page 1 and page 2, so `readWholeList` restarts twice
 * and refuses (`IncompleteList`, kind validation). `lookStep` takes that as final: the create fails
 * "outcome unknown" at once, without looking again and without naming the domain its lost create
 * made, although every read held that domain in the pages it did read (a partial list that holds
 * the key is proof enough that an object of the key exists; only its absence needs the whole list;
 * and a list that moved is worth reading again, as a 503 would be, within the create's bounds).
 *
 * What a user sees: `Domain x` fails with "[IncompleteList] the list is paged and could not be read
 * to its end ... The request may or may not have been applied", and the domain its create made is
 * left on the service, named nowhere: the orphan the commit promises never to leave silently.
 * FAILS against f139362.
 */
interface Held {
  id: number;
  name: string;
}

describe("the lookup after a lost answer on a busy paged service", () => {
  let server: { url: string; close: () => Promise<void> };
  const domains: Held[] = [];
  const lostName = "lost.example.com";
  let others = 0;
  const json = (d: Held) => ({
    id: d.id,
    uuid: `u${d.id}`,
    name: d.name,
    spf_status: "Pending",
    dkim_status: "Pending",
    mx_status: "Pending",
    return_path_status: "Pending",
    created_at: "2026-01-01T00:00:00Z",
  });

  beforeAll(async () => {
    const fork = http.createServer((req, res) => {
      let text = "";
      req.on("data", (c: Buffer) => (text += c.toString()));
      req.on("end", () => {
        const body = (text ? JSON.parse(text) : {}) as { name?: string; page?: number };
        const ok = (data: unknown) => {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(envelope(data));
        };
        if (req.url?.endsWith("/domains/create")) {
          if (domains.some((d) => d.name === body.name)) {
            res.writeHead(200, { "content-type": "application/json" });
            res.end(envelope({ code: "ValidationError", message: "Name is already added" }, "error"));
            return;
          }
          const made = { id: domains.length + 1, name: body.name! };
          domains.push(made);
          if (made.name === lostName) return req.socket.destroy(); // made, answer lost
          return ok({ ...json(made), dns_records: [] });
        }
        if (req.url?.endsWith("/domains/list")) {
          const page = body.page ?? 1;
          // Other stacks keep creating domains on this busy server.
          if (page > 1) domains.push({ id: domains.length + 1, name: `other${++others}.example.com` });
          const perPage = 2;
          const totalPages = Math.ceil(domains.length / perPage);
          return ok({
            domains: domains.slice((page - 1) * perPage, page * perPage).map(json),
            pagination: {
              current_page: page,
              per_page: perPage,
              total_pages: totalPages,
              total_count: domains.length,
            },
          });
        }
        res.writeHead(404);
        res.end();
      });
    });
    server = await listenOnLoopback(fork);
  });
  afterAll(() => server.close());

  it("names the domain its lost create left, which every read of the list showed", async () => {
    domains.push({ id: 1, name: "first.example.com" }, { id: 2, name: "second.example.com" });
    await configureForUrl(server.url, [domainProvider]);
    const error = await failure(domainProvider.create({ name: lostName, adopt: false, __provider: "text" }));
    const made = domains.find((d) => d.name === lostName)!;
    expect(made).toBeDefined();
    expect(error.message).toContain(`id ${made.id}`);
  });
});
