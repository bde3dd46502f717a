import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ApiError, CloudflareApiError, startEmulator } from "../../emulator";
import { EmulatorState } from "../../emulator/store/state";
import { useEmulator } from "../support/emulator";

/**
 * `emulator.cloudflare.addRecord`/`records`/`removeRecord` and `emulator.emailApi.addDomain`/
 * `addRoute`/`domains`/`routes`: they answer what the HTTP APIs answer, refuse what they refuse
 * (with the API's own codes and messages), are not requests (no log entry, no faults), and are in
 * the state file when they resolve.
 */

const emulator = useEmulator({ zones: ["example.com", "example.org"] });
let counter = 0;
const fresh = (prefix: string) => `${prefix}${++counter}-${process.pid}.example.com`;

/** The stand-in's list over HTTP, as the Cloudflare provider reads it. */
async function listedOverHttp(zoneId: string, query: string): Promise<unknown[]> {
  const response = await fetch(`${emulator().cloudflare.url}/zones/${zoneId}/dns_records?${query}`, {
    headers: { Authorization: `Bearer ${emulator().cloudflare.apiToken}` },
  });
  return ((await response.json()) as { result: unknown[] }).result;
}

/** What a promise rejected with (fails the test when it resolved). */
async function refusal(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a refusal");
}

describe("emulator.cloudflare", () => {
  it("addRecord stores what a POST stores and answers as the API lists it; records() is the API's list", async () => {
    const zone = emulator().cloudflare.zones[0];
    const name = fresh("spf");
    const added = await emulator().cloudflare.addRecord("example.com", {
      type: "txt",
      name: `${name.split(".")[0]}`, // one label: relative to the zone, as Cloudflare takes it
      content: '"v=spf1 include:_spf.google.com ~all"',
      ttl: 3600,
      comment: "office mail",
    });
    expect(added).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      name,
      type: "TXT",
      content: '"v=spf1 include:_spf.google.com ~all"',
      ttl: 3600,
      proxied: false,
      comment: "office mail",
      tags: [],
    });
    const mx = await emulator().cloudflare.addRecord(zone.id, {
      type: "MX",
      name,
      content: "ASPMX.l.google.com",
      priority: 1,
    });
    expect(mx).toMatchObject({ content: "aspmx.l.google.com", priority: 1, ttl: 1 });

    const overHttp = await listedOverHttp(zone.id, `name=${name}`);
    expect(emulator().cloudflare.records(zone.id, { name })).toEqual(overHttp);
    expect(overHttp).toEqual([added, mx]);
    expect(emulator().cloudflare.records("example.com", { name, type: "MX" })).toEqual([mx]);
    expect(emulator().cloudflare.records("example.org")).toEqual([]);
  });

  it("refuses what the API refuses, with Cloudflare's codes and messages, and changes nothing", async () => {
    const name = fresh("clash");
    const cloudflare = emulator().cloudflare;
    await cloudflare.addRecord("example.com", { type: "A", name, content: "192.0.2.1" });
    const held = emulator().state.cloudflare.records.length;

    const identical = await refusal(
      cloudflare.addRecord("example.com", { type: "A", name, content: "192.0.2.1" }),
    );
    expect(identical).toBeInstanceOf(CloudflareApiError);
    expect(identical.message).toBe("81058 An identical record already exists.");
    expect((identical as CloudflareApiError).errors).toEqual([
      { code: 81058, message: "An identical record already exists." },
    ]);
    expect(
      (await refusal(cloudflare.addRecord("example.com", { type: "CNAME", name, content: "x.example.net" })))
        .message,
    ).toBe("81053 An A, AAAA, or CNAME record with that host already exists.");
    expect(
      (await refusal(cloudflare.addRecord("example.com", { type: "TXT", name, content: " " }))).message,
    ).toBe("1004 DNS Validation Error: 9101 content is a required field.");
    expect(
      (
        await refusal(
          cloudflare.addRecord("example.com", { type: "TXT", name: "mail.example.net", content: "x" }),
        )
      ).message,
    ).toBe("9000 DNS name is invalid.");
    expect(
      (await refusal(cloudflare.addRecord("example.net", { type: "TXT", name, content: "x" }))).message,
    ).toBe("1001 Invalid zone identifier");
    expect(emulator().state.cloudflare.records.length).toBe(held);
  });

  it("removeRecord deletes as a DELETE does; a record of another zone is not found", async () => {
    const name = fresh("gone");
    const record = await emulator().cloudflare.addRecord("example.com", {
      type: "TXT",
      name,
      content: '"x"',
    });
    expect((await refusal(emulator().cloudflare.removeRecord("example.org", record.id))).message).toBe(
      "81044 Record does not exist.",
    );
    await emulator().cloudflare.removeRecord("example.com", record.id);
    expect(emulator().cloudflare.records("example.com", { name })).toEqual([]);
  });

  it("is no request: nothing in the log, and faults do not apply", async () => {
    emulator().requests.clear();
    emulator().faults.set([{ endpoints: "**", rate503: 1 }]);
    try {
      const name = fresh("quiet");
      await emulator().cloudflare.addRecord("example.com", { type: "TXT", name, content: '"x"' });
      await emulator().emailApi.addDomain(name);
      expect(emulator().requests.all()).toEqual([]);
    } finally {
      emulator().faults.set([]);
    }
  });
});

describe("emulator.emailApi", () => {
  it("addDomain answers as domains/create; domains() is domains/list; a name held twice is the service's refusal", async () => {
    const name = fresh("made");
    const domain = await emulator().emailApi.addDomain(name);
    expect(domain).toMatchObject({ name, spf_status: null, dkim_status: null, mx_status: null });
    expect(domain.dns_records.map((r) => `${r.purpose} ${r.type} ${r.name}`)).toEqual([
      `spf TXT ${name}`,
      expect.stringMatching(
        new RegExp(`^dkim TXT postal-[A-Z]{6}\\._domainkey\\.${name.replace(/\./g, "\\.")}$`),
      ),
      `return_path CNAME psrp.${name}`,
      `mx MX ${name}`,
      `mx MX ${name}`,
    ]);
    const { dns_records: _records, ...listed } = domain;
    expect(emulator().emailApi.domains()).toContainEqual(listed);

    const again = await refusal(emulator().emailApi.addDomain(name));
    expect(again).toBeInstanceOf(ApiError);
    expect(again.message).toBe("ValidationError: Name is already added");
    expect((await refusal(emulator().emailApi.addDomain("Mail.Example.com"))).message).toBe(
      "ValidationError: Name is invalid",
    );
  });

  it("addDomain verified: the records are in the zone and the service's check passed through DNS", async () => {
    const name = fresh("verified");
    const domain = await emulator().emailApi.addDomain(name, { verified: true });
    expect(domain).toMatchObject({
      spf_status: "OK",
      dkim_status: "OK",
      mx_status: "OK",
      return_path_status: "OK",
    });
    const published = emulator()
      .cloudflare.records("example.com")
      .filter((record) => record.name === name || record.name.endsWith(`.${name}`));
    expect(published.map((r) => r.type).sort()).toEqual(["CNAME", "MX", "MX", "TXT", "TXT"]);
    expect(published.find((r) => r.type === "TXT" && r.name === name)?.content).toBe(
      '"v=spf1 a mx include:spf.postal.example.com ~all"',
    );
  });

  it("addDomain verified of a name in none of the zones fails before making anything", async () => {
    const before = emulator().emailApi.domains().length;
    const error = await refusal(emulator().emailApi.addDomain("mail.example.net", { verified: true }));
    expect(error.message).toContain("none holds mail.example.net");
    expect(emulator().emailApi.domains()).toHaveLength(before);
  });

  it("addRoute answers as routes/create, on a domain named or numbered; routes() is routes/list", async () => {
    const name = fresh("routed");
    const domain = await emulator().emailApi.addDomain(name);
    const [first, second] = emulator().state.endpoints;
    const support = await emulator().emailApi.addRoute({ name: "support", domain: name });
    expect(support).toEqual({
      id: expect.any(Number),
      uuid: expect.any(String),
      name: "support",
      domain_id: domain.id,
      endpoint_id: first.id,
      mode: "Endpoint",
      spam_mode: "Mark",
    });
    const held = await emulator().emailApi.addRoute({
      name: "*",
      domain: domain.id,
      endpointId: second.id,
      mode: "Hold",
      spamMode: "Quarantine",
    });
    expect(held).toMatchObject({ endpoint_id: second.id, mode: "Hold", spam_mode: "Quarantine" });
    expect(emulator().emailApi.routes()).toEqual(expect.arrayContaining([support, held]));

    const taken = await refusal(emulator().emailApi.addRoute({ name: "support", domain: name }));
    expect(taken).toBeInstanceOf(ApiError);
    expect((taken as ApiError).code).toBe("RouteAlreadyExists");
    expect(
      (await refusal(emulator().emailApi.addRoute({ name: "x", domain: "nowhere.example.com" }))).message,
    ).toBe("ValidationError: Domain is invalid");
    expect(
      (await refusal(emulator().emailApi.addRoute({ name: "y", domain: name, mode: "Forward" }))).message,
    ).toBe("ValidationError: Mode is not included in the list");
  });
});

describe("with a state file", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "emulator-seeding-"));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("a seeding call resolves once the file holds its change, as an answer goes out only then", async () => {
    const stateFile = path.join(dir, "state.json");
    const seeded = await startEmulator({ stateFile });
    let record, domain, route;
    try {
      record = await seeded.cloudflare.addRecord("example.com", { type: "TXT", name: "@", content: '"x"' });
      const afterRecord = JSON.parse(await fs.readFile(stateFile, "utf8")) as EmulatorState;
      expect(afterRecord.cloudflare.records.map((r) => r.id)).toEqual([record.id]);

      domain = await seeded.emailApi.addDomain("mail.example.com");
      route = await seeded.emailApi.addRoute({ name: "support", domain: domain.id });
      const afterRoute = JSON.parse(await fs.readFile(stateFile, "utf8")) as EmulatorState;
      expect(afterRoute.domains.map((d) => d.name)).toEqual(["mail.example.com"]);
      expect(afterRoute.routes.map((r) => r.id)).toEqual([route.id]);

      await seeded.cloudflare.removeRecord("example.com", record.id);
      const afterRemove = JSON.parse(await fs.readFile(stateFile, "utf8")) as EmulatorState;
      expect(afterRemove.cloudflare.records).toEqual([]);
    } finally {
      await seeded.stop();
    }
    const restarted = await startEmulator({ stateFile });
    try {
      expect(restarted.emailApi.domains()).toEqual([expect.objectContaining({ id: domain.id })]);
      expect(restarted.emailApi.routes()).toEqual([route]);
    } finally {
      await restarted.stop();
    }
  });
});
