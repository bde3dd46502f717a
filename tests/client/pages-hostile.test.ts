import { createClient, EmailApiError } from "../../provider/client";
import { MAX_PAGES } from "../../provider/client/pages";
import { domainProvider } from "../../provider/dynamic";
import { forgetConfig } from "../../provider/dynamic/configured";
import { configureForUrl } from "../support/providers";
import { PageRequest, startListFork } from "../support/list-fork";

const KEY = "ScriptedKey0000000000001";

interface ForkDomain {
  id: number;
  uuid: string;
  name: string;
  created_at: string;
}

const domain = (id: number): ForkDomain => ({
  id,
  uuid: `u-${id}`,
  name: `d${id}.example.com`,
  created_at: "2026-01-01T00:00:00Z",
});

/**
 * A fork whose `domains/list` answer is built per request by `answer` (its `data`), given the
 * request body and how many list requests came before. Anything else is refused.
 */
const startFork = (answer: (body: PageRequest, index: number) => unknown) =>
  startListFork(({ path, body, index }) => (path === "domains/list" ? answer(body, index) : undefined));

/** What a refresh's `read` of domain `id` concludes from the fork: its id, undefined (gone), or refused. */
async function refreshRead(url: string, id: number): Promise<string | undefined> {
  await configureForUrl(url, [domainProvider]);
  try {
    const read = await domainProvider.read(String(id), {
      name: `d${id}.example.com`,
      adopt: false,
      dnsRecords: [],
    });
    return read.id;
  } catch {
    return "refused";
  } finally {
    forgetConfig();
  }
}

const all = (count: number) => Array.from({ length: count }, (_, i) => domain(i + 1));

describe("paged lists from hostile or sloppy services: nothing on a later page reads as gone", () => {
  it("a service that ignores `page` (no current_page) and counts pages only", async () => {
    // 60 domains, 30 a page: page 2 is asked for, page 1 comes back again, unnoticed.
    const domains = all(60);
    const fork = await startFork(() => ({
      domains: domains.slice(0, 30),
      pagination: { per_page: 30, total_pages: 2 },
    }));
    try {
      expect(await refreshRead(fork.url, 45)).not.toBeUndefined();
    } finally {
      await fork.close();
    }
  });

  it("a service that ignores `page` (no current_page) when the total is exactly two pages", async () => {
    // The count check passes: 30 + 30 duplicates = 60 = total_count.
    const domains = all(60);
    const fork = await startFork(() => ({
      domains: domains.slice(0, 30),
      pagination: { per_page: 30, total_count: 60 },
    }));
    try {
      expect(await refreshRead(fork.url, 45)).not.toBeUndefined();
    } finally {
      await fork.close();
    }
  });

  it("a list that shrinks while paged (another stack deletes a domain on page 1), counted in pages", async () => {
    let domains = all(45);
    const fork = await startFork((body) => {
      const page = body.page ?? 1;
      const answer = {
        domains: domains.slice((page - 1) * 30, page * 30),
        pagination: { current_page: page, per_page: 30, total_pages: Math.ceil(domains.length / 30) },
      };
      if (page === 1) domains = domains.filter((d) => d.id !== 1); // deleted right after page 1 was read
      return answer;
    });
    try {
      // Domain 31 moves onto page 1 after page 1 was read, and is not on page 2.
      expect(await refreshRead(fork.url, 31)).not.toBeUndefined();
    } finally {
      await fork.close();
    }
  });

  it("a busy list whose count stays the same while paged (one deleted on page 1, one added)", async () => {
    let domains = all(45);
    const fork = await startFork((body) => {
      const page = body.page ?? 1;
      const answer = {
        domains: domains.slice((page - 1) * 30, page * 30),
        pagination: {
          current_page: page,
          per_page: 30,
          total_pages: Math.ceil(domains.length / 30),
          total_count: domains.length,
        },
      };
      if (page === 1) domains = [...domains.filter((d) => d.id !== 1), domain(46)];
      return answer;
    });
    try {
      expect(await refreshRead(fork.url, 31)).not.toBeUndefined();
    } finally {
      await fork.close();
    }
  });

  it("a page count of 0 on a full page with items is not a complete list", async () => {
    const domains = all(45);
    const fork = await startFork((body) => {
      const page = body.page ?? 1;
      return {
        domains: domains.slice((page - 1) * 30, page * 30),
        pagination: { current_page: page, per_page: 30, total_pages: 0 },
      };
    });
    try {
      expect(await refreshRead(fork.url, 40)).not.toBeUndefined();
    } finally {
      await fork.close();
    }
  });

  it("pagination given next to the list instead of under `pagination` is not ignored", async () => {
    // `{domains, current_page, per_page, total_pages, total_count}`: the same words, one level up.
    const domains = all(45);
    const fork = await startFork((body) => {
      const page = body.page ?? 1;
      return {
        domains: domains.slice((page - 1) * 30, page * 30),
        current_page: page,
        per_page: 30,
        total_pages: 2,
        total_count: 45,
      };
    });
    try {
      expect(await refreshRead(fork.url, 40)).not.toBeUndefined();
    } finally {
      await fork.close();
    }
  });

  it("a next_page that points back stops within MAX_PAGES pages, refused", async () => {
    // Page 1 says next is 2, page 2 says next is 1: the page number never reaches MAX_PAGES.
    // The fork gives up (HTTP 400) after MAX_PAGES + 500 requests, so a loop cannot hang the test.
    const fork = await startFork((body, index) => {
      if (index > MAX_PAGES + 500) return undefined;
      const page = body.page ?? 1;
      return {
        domains: [domain(page)],
        pagination: { current_page: page, per_page: 1, next_page: page === 1 ? 2 : 1 },
      };
    });
    try {
      const client = createClient({
        baseUrl: fork.url,
        apiKey: KEY,
        retry: { maxAttempts: 1, budgetMs: 600_000 },
      });
      const error = await client.listDomains().then(
        () => undefined,
        (e: EmailApiError) => e,
      );
      expect(error).toMatchObject({ code: "IncompleteList" });
      expect(fork.received.length).toBeLessThanOrEqual(MAX_PAGES + 1);
    } finally {
      await fork.close();
    }
  }, 120_000);

  it("a list paged by next_page alone, null on the last page, can be read", async () => {
    // `null` is the usual "no next page" (pages.ts: "null on the last page"); the schema turns it
    // into "not said", so every such list is refused and every refresh fails.
    const domains = all(45);
    const fork = await startFork((body) => {
      const page = body.page ?? 1;
      return {
        domains: domains.slice((page - 1) * 30, page * 30),
        pagination: { current_page: page, next_page: page === 1 ? 2 : null },
      };
    });
    try {
      const listed = await createClient({ baseUrl: fork.url, apiKey: KEY, retry: { maxAttempts: 1 } })
        .listDomains()
        .then(
          (list) => list.length,
          (e: EmailApiError) => e.message,
        );
      expect(listed).toBe(45);
    } finally {
      await fork.close();
    }
  });
});
