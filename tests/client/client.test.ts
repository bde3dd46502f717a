import { createClient, errorDetails, isNameTaken, isObjectNotFound } from "../../provider/client";
import { clientFor, failureOf, uniqueDomain, useEmulator } from "../support/emulator";

/** The client against the emulator over real HTTP: every operation, every error the service gives. */
describe("EmailDeliveryClient against the emulator", () => {
  const emulator = useEmulator();

  it("creates, lists, checks and deletes a domain", async () => {
    const client = clientFor(emulator());
    const name = uniqueDomain();
    const created = await client.createDomain(name);

    expect(created.domain).toMatchObject({
      name,
      spfStatus: null,
      dkimStatus: null,
      mxStatus: null,
      returnPathStatus: null,
    });
    expect(created.domain.id).toEqual(expect.any(Number));
    expect(created.domain.uuid).toMatch(/^[0-9a-f-]{36}$/);
    const purposes = created.dnsRecords!.map((record) => `${record.purpose}:${record.type}`);
    expect(purposes.sort()).toEqual(["dkim:TXT", "mx:MX", "mx:MX", "return_path:CNAME", "spf:TXT"]);
    const dkim = created.dnsRecords!.find((record) => record.purpose === "dkim")!;
    expect(dkim.name).toMatch(new RegExp(`^postal-[A-Z]{6}\\._domainkey\\.${name.replace(/\./g, "\\.")}$`));
    expect(dkim.content).toMatch(/^v=DKIM1; t=s; h=sha256; p=[A-Za-z0-9+/=]+;$/);
    expect(created.dnsRecords!.filter((record) => record.type === "MX").map((r) => r.priority)).toEqual([
      10, 10,
    ]);

    const listed = await client.listDomains();
    expect(listed.find((domain) => domain.id === created.domain.id)).toEqual(created.domain);

    const check = await client.checkDomain(created.domain.id);
    expect(check).toEqual({
      spfStatus: "Missing",
      spfError: "No SPF record exists for this domain",
      dkimStatus: "Missing",
      dkimError: `No TXT records were returned for ${dkim.name}`,
      mxStatus: "Missing",
      mxError: `There are no MX records for ${name}`,
      returnPathStatus: "Missing",
      returnPathError: `There is no return path record at psrp.${name}`,
    });
    expect((await client.listDomains()).find((d) => d.id === created.domain.id)?.spfStatus).toBe("Missing");

    await client.deleteDomain(created.domain.id);
    expect((await client.listDomains()).some((domain) => domain.id === created.domain.id)).toBe(false);
  });

  it("creates, lists, updates and deletes a route; a domain's delete takes its routes", async () => {
    const client = clientFor(emulator());
    const { domain } = await client.createDomain(uniqueDomain());
    const { route } = await client.createRoute({
      name: "support",
      domainId: domain.id,
      endpointId: 1,
    });
    expect(route).toMatchObject({
      name: "support",
      domainId: domain.id,
      endpointId: 1,
      mode: "Endpoint",
      spamMode: "Mark",
    });

    const held = await client.createRoute({
      name: "*",
      domainId: domain.id,
      endpointId: 2,
      mode: "Hold",
      spamMode: "Quarantine",
    });
    expect(held.route).toMatchObject({ name: "*", mode: "Hold", spamMode: "Quarantine" });

    const updated = await client.updateRoute({ id: route.id, name: "help", endpointId: 3, spamMode: "Fail" });
    expect(updated).toMatchObject({
      id: route.id,
      name: "help",
      endpointId: 3,
      mode: "Endpoint",
      spamMode: "Fail",
    });
    expect((await client.listRoutes()).find((r) => r.id === route.id)).toEqual(updated);

    await client.deleteRoute(route.id);
    expect((await client.listRoutes()).some((r) => r.id === route.id)).toBe(false);

    await client.deleteDomain(domain.id);
    expect((await client.listRoutes()).some((r) => r.id === held.route.id)).toBe(false);
  });

  it("sends a message from one of the server's domains", async () => {
    const client = clientFor(emulator());
    const name = uniqueDomain();
    await client.createDomain(name);
    const sent = await client.sendMessage({
      from: `hello@${name}`,
      to: ["a@example.org", "b@example.org"],
      subject: "Hi",
      plainBody: "Hello",
    });
    expect(sent.messageId).toEqual(expect.any(String));
    expect(Object.keys(sent.messages).sort()).toEqual(["a@example.org", "b@example.org"]);
    const stored = emulator().state.messages.filter((message) => message.messageId === sent.messageId);
    expect(stored.map((message) => message.rcptTo).sort()).toEqual(["a@example.org", "b@example.org"]);
    expect(stored[0]).toMatchObject({ from: `hello@${name}`, subject: "Hi", plainBody: "Hello" });
  });

  it("creates a server with the master key; its API key works and its SMTP key does not", async () => {
    const admin = clientFor(emulator());
    const server = await admin.createServer({ name: `Staging ${process.pid}`, mode: "Live" });
    expect(server).toMatchObject({ name: `Staging ${process.pid}`, mode: "Live" });
    expect(server.apiKey).toMatch(/^[A-Za-z0-9]{24}$/);

    const own = clientFor(emulator(), { apiKey: server.apiKey });
    expect(await own.listDomains()).toEqual([]);

    const smtp = clientFor(emulator(), { apiKey: server.smtpKey });
    const error = await failureOf(smtp.listDomains());
    expect(error).toMatchObject({ kind: "auth", code: "InvalidServerAPIKey", attempts: 1 });
    expect(error.message).not.toContain(server.smtpKey);
  });

  it("maps every service error to its kind, without retrying, and never shows a key", async () => {
    const client = clientFor(emulator());
    const badKey = "NotARealKey0000000000001";
    const wrongKey = await failureOf(clientFor(emulator(), { apiKey: badKey }).listDomains());
    expect(wrongKey).toMatchObject({
      kind: "auth",
      code: "InvalidServerAPIKey",
      httpStatus: 200,
      attempts: 1,
    });
    expect(`${wrongKey.message} ${wrongKey.stack} ${JSON.stringify(errorDetails(wrongKey))}`).not.toContain(
      badKey,
    );

    const wrongMaster = await failureOf(
      clientFor(emulator(), { masterKey: "WrongMasterKey0000000001" }).createServer({
        name: "x",
        mode: "Live",
      }),
    );
    expect(wrongMaster).toMatchObject({ kind: "auth", code: "AccessDenied" });
    expect(wrongMaster.message).not.toContain("WrongMasterKey0000000001");

    const missing = await failureOf(client.checkDomain(987654));
    expect(missing).toMatchObject({ kind: "not-found", code: "DomainNotFound" });
    expect(isObjectNotFound(missing)).toBe(true);
    expect(await failureOf(client.deleteRoute(987654))).toMatchObject({
      kind: "not-found",
      code: "RouteNotFound",
    });

    const invalid = await failureOf(client.createDomain("Not_Valid.example.com"));
    expect(invalid).toMatchObject({
      kind: "validation",
      code: "ValidationError",
      serviceMessage: "Name is invalid",
    });

    const blank = await failureOf(client.createDomain(""));
    expect(blank).toMatchObject({ kind: "validation", code: "ParameterError" });
    expect(blank.serviceMessage).toBe("`name` parameter is required but is missing");

    const name = uniqueDomain();
    const { domain } = await client.createDomain(name);
    emulator().requests.clear();
    // Nothing is listed first: the service itself refuses a name it holds, and its refusal names no
    // holder (createDomainWithRecords lists to name it).
    const taken = await failureOf(client.createDomain(name));
    expect(taken).toMatchObject({
      kind: "validation",
      code: "ValidationError",
      serviceMessage: "Name is already added",
      attempts: 1,
    });
    expect(taken.existing).toBeUndefined();
    expect(isNameTaken(taken)).toBe(true);
    await client.createRoute({ name: "dup", domainId: domain.id, endpointId: 1 });
    const conflict = await failureOf(client.createRoute({ name: "dup", domainId: domain.id, endpointId: 1 }));
    expect(conflict).toMatchObject({ kind: "conflict", code: "RouteAlreadyExists", attempts: 1 });
    expect(conflict.existing).toBeUndefined();
    expect(isNameTaken(conflict)).toBe(true);
    expect(
      emulator()
        .requests.all()
        .map((entry) => entry.endpoint),
    ).toEqual(["domains/create", "routes/create", "routes/create"]);
    expect(emulator().state.domains.filter((d) => d.name === name)).toHaveLength(1);
    expect(emulator().state.routes.filter((r) => r.domainId === domain.id)).toHaveLength(1);
  });

  it("refuses to send without a key, and says which one is missing", async () => {
    const client = createClient({ baseUrl: emulator().emailApi.url });
    const sentBefore = emulator().requests.all().length;
    expect(await failureOf(client.listDomains())).toMatchObject({
      kind: "auth",
      serviceMessage: "no API key is configured for this client",
    });
    expect(emulator().requests.all().length).toBe(sentBefore);
  });

  it("treats a wrong base path (HTTP 404 page) as not-found but never as a missing object", async () => {
    const client = clientFor(emulator(), { baseUrl: `${emulator().emailApi.url}/wrong/prefix` });
    const error = await failureOf(client.deleteDomain(1));
    expect(error).toMatchObject({ kind: "not-found", httpStatus: 404 });
    expect(isObjectNotFound(error)).toBe(false);
  });

  it("shows statuses after a check even to a list that started before it", async () => {
    const client = clientFor(emulator());
    const { domain } = await client.createDomain(uniqueDomain());
    emulator().faults.set([{ endpoints: "domains/list", latencyMs: 300 }]);
    try {
      emulator().requests.clear();
      const early = client.listDomains(); // still in flight when the check ends
      await client.checkDomain(domain.id);
      // Joins the flight that began before the check: the check's answer is applied to it.
      const late = await client.listDomains();
      await early;
      expect(emulator().requests.count("domains/list")).toBe(1);
      expect(late.find((d) => d.id === domain.id)?.spfStatus).toBe("Missing");
    } finally {
      emulator().faults.set([]);
    }
  });

  it("rejects base URLs it cannot use, naming the problem but never a key", () => {
    const apiKey = "KeyPastedIntoTheUrl00001";
    const fix = "set it to the service's address, e.g. https://postal.example.com. Nothing was sent.";
    expect(() => createClient({ baseUrl: `x ${apiKey}`, apiKey })).toThrow(
      new Error(`The email delivery base URL "x [redacted]" is not a URL: ${fix}`),
    );
    expect(() => createClient({ baseUrl: "ftp://x" })).toThrow(
      new Error(`The email delivery base URL "ftp://x" uses ftp:, not http or https: ${fix}`),
    );
    expect(() => createClient({ baseUrl: "https://user:pw@x" })).toThrow(
      new Error(
        'The email delivery base URL "https://x" holds a user name or password: remove them (the API key is a ' +
          "setting of its own). Nothing was sent.",
      ),
    );
  });
});
