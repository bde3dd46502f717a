import { createClient, EmailApiError } from "../../provider/client";
import { MAX_PAGES, nextPageStep, repeatedId } from "../../provider/client/pages";
import { domainProvider, routeProvider } from "../../provider/dynamic";
import { forgetConfig } from "../../provider/dynamic/configured";
import { configureForUrl } from "../support/providers";
import { startListFork } from "../support/list-fork";

const KEY = "ScriptedKey0000000000001";

describe("nextPageStep", () => {
  const page = (n: number, pagination?: Record<string, number | null | undefined>) => ({
    items: Array.from({ length: n }, (_, i) => i),
    pagination,
  });
  /** The context after reading page `requested`, having read every page before it. */
  const at = (requested: number, collected: number, firstTotal?: number) => ({
    requested,
    pagesRead: requested,
    collected,
    firstTotal,
    visited: new Set(Array.from({ length: requested }, (_, i) => i + 1)),
  });

  it("takes a bare array as the whole list", () => {
    expect(nextPageStep(page(3), at(1, 3))).toEqual({ next: "done" });
  });

  it("follows total pages, a total count, or a next page, keeping the page size", () => {
    expect(nextPageStep(page(30, { page: 1, perPage: 30, totalPages: 2 }), at(1, 30))).toEqual({
      next: "page",
      page: 2,
      perPage: 30,
    });
    expect(nextPageStep(page(30, { total: 31 }), at(1, 30, 31))).toEqual({ next: "page", page: 2 });
    expect(nextPageStep(page(2, { nextPage: 5 }), at(4, 50))).toEqual({ next: "page", page: 5 });
    expect(nextPageStep(page(1, { page: 2, totalPages: 2, total: 31 }), at(2, 31, 31))).toEqual({
      next: "done",
    });
    expect(nextPageStep(page(1, { page: 2, nextPage: null }), at(2, 31))).toEqual({ next: "done" });
  });

  it("refuses a service that ignores the page asked for, or does not say how many pages", () => {
    expect(nextPageStep(page(30, { page: 1, totalPages: 2 }), at(2, 60))).toMatchObject({ next: "refuse" });
    expect(nextPageStep(page(30, { page: 1 }), at(1, 30))).toMatchObject({ next: "refuse" });
    // A short page under a known page size is the last one.
    expect(nextPageStep(page(3, { page: 1, perPage: 30 }), at(1, 3))).toEqual({ next: "done" });
  });

  it("refuses page counts that contradict the pages, and pages that lead back", () => {
    expect(nextPageStep(page(30, { page: 1, totalPages: 0 }), at(1, 30))).toMatchObject({ next: "refuse" });
    expect(nextPageStep(page(1, { page: 2, nextPage: 1 }), at(2, 2))).toMatchObject({
      next: "refuse",
      reason: "the pages lead back to page 1",
    });
    const far = { ...at(1, 1), pagesRead: MAX_PAGES };
    expect(nextPageStep(page(1, { page: 1, nextPage: 2 }), far)).toMatchObject({ next: "refuse" });
  });

  it("reads again when the list changed while it was paged", () => {
    expect(nextPageStep(page(30, { page: 2, total: 60 }), at(2, 60, 61))).toMatchObject({ next: "restart" });
    expect(nextPageStep(page(0, { page: 3, totalPages: 3, total: 61 }), at(3, 60, 61))).toMatchObject({
      next: "restart",
    });
    // A short page that is not the last: objects moved to earlier pages while they were read.
    expect(nextPageStep(page(29, { page: 1, perPage: 30, totalPages: 2 }), at(1, 29))).toMatchObject({
      next: "restart",
    });
  });
});

describe("repeatedId", () => {
  it("finds an object listed twice", () => {
    expect(repeatedId([{ id: 1 }, { id: 2 }, { id: 1 }])).toBe(1);
    expect(repeatedId([{ id: 1 }, { id: 2 }])).toBeUndefined();
  });
});

/**
 * A fork that pages its lists as `{domains: [...], pagination: {current_page, per_page,
 * total_pages, total_count}}`, 30 a page unless `per_page` says otherwise. `ignorePage` makes it
 * answer page 1 whatever was asked.
 */
async function startPagingFork(count: number, options: { ignorePage?: boolean } = {}) {
  const domains = Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    uuid: `u-${i + 1}`,
    name: `d${i + 1}.example.com`,
    created_at: "2026-01-01T00:00:00Z",
  }));
  const routes = domains.map((d) => ({ id: d.id, uuid: `r-${d.id}`, name: "inbox", domain_id: d.id }));
  return startListFork(({ path, body }) => {
    const [kind, items] = path === "routes/list" ? ["routes", routes] : ["domains", domains];
    const perPage = body.per_page ?? 30;
    const page = options.ignorePage ? 1 : (body.page ?? 1);
    return {
      [kind]: items.slice((page - 1) * perPage, page * perPage),
      pagination: {
        current_page: page,
        per_page: perPage,
        total_pages: Math.ceil(items.length / perPage),
        total_count: items.length,
      },
    };
  });
}

describe("a service that pages its lists", () => {
  it("reads every page, asking with the page size it reported", async () => {
    const fork = await startPagingFork(65);
    try {
      const domains = await createClient({ baseUrl: fork.url, apiKey: KEY }).listDomains();
      expect(domains.map((d) => d.id)).toEqual(Array.from({ length: 65 }, (_, i) => i + 1));
      expect(fork.received.map((r) => r.body)).toEqual([
        {},
        { page: 2, per_page: 30 },
        { page: 3, per_page: 30 },
      ]);
    } finally {
      await fork.close();
    }
  });

  it("refuses a list whose later pages cannot be had, rather than read it as complete", async () => {
    const fork = await startPagingFork(65, { ignorePage: true });
    try {
      const error = await createClient({ baseUrl: fork.url, apiKey: KEY, retry: { maxAttempts: 1 } })
        .listDomains()
        .then(
          () => undefined,
          (e: EmailApiError) => e,
        );
      expect(error).toMatchObject({ kind: "validation", code: "IncompleteList" });
      expect(error!.message).toContain("page 2 was asked for but page 1 came back");
    } finally {
      await fork.close();
    }
  });

  it("never reads a domain or route on a later page as gone (a refresh would drop it from state)", async () => {
    const fork = await startPagingFork(45);
    try {
      await configureForUrl(fork.url, [domainProvider, routeProvider]);
      const domain = await domainProvider.read("40", {
        name: "d40.example.com",
        adopt: false,
        dnsRecords: [],
      });
      expect(domain.id).toBe("40");
      const route = await routeProvider.read("44", {
        name: "inbox",
        domainId: 44,
        endpointId: 1,
        mode: "Endpoint",
        spamMode: "Mark",
        adopt: false,
      });
      expect(route.id).toBe("44");
    } finally {
      forgetConfig();
      await fork.close();
    }
  });
});
