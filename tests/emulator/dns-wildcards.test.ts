import { addZone } from "../../emulator/cloudflare";
import { defaultMailDnsConfig } from "../../emulator/config";
import { CLOUDFLARE_EDGE, lookup } from "../../emulator/dns/lookup";
import { SERVICE_SPF, withServiceRecords } from "../../emulator/dns/service-records";
import { ZoneRecord } from "../../emulator/store/state";
import type { Answer } from "dns-packet";
import { Store } from "../../emulator/store/store";
import { useEmulator } from "../support/emulator";
import { storeRecord } from "../support/store-records";
import { resolverAt } from "../support/dns-client";

/**
 * Wildcard records as Cloudflare serves them and RFC 4592 §3.3 says: a name that does not exist
 * is answered from `*.<closest encloser>` under its own name; a name that exists (an empty
 * non-terminal included) never is.
 */

let store: Store;
let zone: ZoneRecord;
const add = (fields: Parameters<typeof storeRecord>[2]) => storeRecord(store, zone, fields);
const ask = (name: string, type: string) => lookup(store.state.cloudflare, name, type);
const dataOf = (answer: Answer) => ("data" in answer ? answer.data : undefined);
const owners = (name: string, type: string) =>
  ask(name, type).answers.map((a) => [a.name, a.type, dataOf(a)]);

beforeAll(() => {
  store = new Store();
  zone = addZone(store, "example.com");
  addZone(store, "sub.example.com");
  add({ name: "*.example.com", type: "TXT", content: '"wild"' });
  add({ name: "*.example.com", type: "MX", content: "mx.example.net", priority: 10 });
  add({ name: "www.example.com", type: "A", content: "192.0.2.7" });
  add({ name: "a.deep.example.com", type: "A", content: "192.0.2.8" });
  add({ name: "*.cdn.example.com", type: "CNAME", content: "origin.example.com" });
  add({ name: "origin.example.com", type: "A", content: "192.0.2.9" });
  add({ name: "*.edge.example.com", type: "A", content: "192.0.2.10", proxied: true });
});

describe("lookup", () => {
  it("answers a name that does not exist from the wildcard, under the question's name and spelling", () => {
    expect(owners("Nothing.Example.com", "TXT")).toEqual([
      ["Nothing.Example.com", "TXT", [Buffer.from("wild")]],
    ]);
    expect(ask("nothing.example.com", "TXT")).toMatchObject({ rcode: "NOERROR", authoritative: true });
    // The wildcard matches more than one label: b.example.com does not exist either.
    expect(owners("a.b.example.com", "MX")).toEqual([
      ["a.b.example.com", "MX", { preference: 10, exchange: "mx.example.net" }],
    ]);
  });

  it("answers no data, not NXDOMAIN, for a type the wildcard does not have", () => {
    expect(ask("nothing.example.com", "A")).toMatchObject({
      rcode: "NOERROR",
      answers: [],
      authorities: [expect.objectContaining({ type: "SOA" })],
    });
  });

  it("never matches a name that exists, an empty non-terminal included", () => {
    expect(ask("www.example.com", "TXT")).toMatchObject({ rcode: "NOERROR", answers: [] });
    expect(ask("deep.example.com", "TXT")).toMatchObject({ rcode: "NOERROR", answers: [] });
    // Below an existing name, the closest encloser is that name, which has no wildcard.
    expect(ask("other.deep.example.com", "TXT")).toMatchObject({ rcode: "NXDOMAIN", answers: [] });
    expect(ask("*.example.com", "TXT").answers.map((a) => a.name)).toEqual(["*.example.com"]);
  });

  it("follows a CNAME at the wildcard as any CNAME, and answers a CNAME question with it", () => {
    expect(owners("img.cdn.example.com", "A")).toEqual([
      ["img.cdn.example.com", "CNAME", "origin.example.com"],
      ["origin.example.com", "A", "192.0.2.9"],
    ]);
    expect(owners("img.cdn.example.com", "CNAME")).toEqual([
      ["img.cdn.example.com", "CNAME", "origin.example.com"],
    ]);
  });

  it("answers NXDOMAIN below a wildcard's own name (its closest encloser has no wildcard)", () => {
    expect(ask("q.*.example.com", "TXT")).toMatchObject({ rcode: "NXDOMAIN" });
  });

  it("answers a proxied wildcard with Cloudflare's edge, and keeps wildcards to their own zone", () => {
    expect(owners("shop.edge.example.com", "A")).toEqual(
      CLOUDFLARE_EDGE.A.map((address) => ["shop.edge.example.com", "A", address]),
    );
    // sub.example.com is a zone of its own: example.com's wildcard does not answer for it.
    expect(ask("x.sub.example.com", "TXT")).toMatchObject({ rcode: "NXDOMAIN" });
  });

  it("gives way to the installation's records, whose names exist", () => {
    add({ name: "*.postal.example.com", type: "TXT", content: '"wild postal"' });
    const data = withServiceRecords(store.state.cloudflare, defaultMailDnsConfig());
    const txt = (name: string) => lookup(data, name, "TXT").answers.map(dataOf);
    expect(txt("spf.postal.example.com")).toEqual([[Buffer.from(SERVICE_SPF)]]);
    expect(txt("other.postal.example.com")).toEqual([[Buffer.from("wild postal")]]);
  });
});

describe("over the wire, records added through the emulator", () => {
  const emulator = useEmulator();

  it("serves a wildcard to node's resolver, and NXDOMAIN without one", async () => {
    const resolver = () => resolverAt(emulator().dns.address);
    await expect(resolver().resolveTxt("anything.wild.example.com")).rejects.toMatchObject({
      code: "ENOTFOUND",
    });
    await emulator().cloudflare.addRecord("example.com", {
      name: "*.wild.example.com",
      type: "TXT",
      content: '"hi"',
    });
    await expect(resolver().resolveTxt("anything.wild.example.com")).resolves.toEqual([["hi"]]);
    await expect(resolver().resolve4("anything.wild.example.com")).rejects.toMatchObject({ code: "ENODATA" });
    // Cloudflare takes `*` as the leftmost label only.
    await expect(
      emulator().cloudflare.addRecord("example.com", {
        name: "a.*.wild.example.com",
        type: "TXT",
        content: '"no"',
      }),
    ).rejects.toThrow();
  });
});
