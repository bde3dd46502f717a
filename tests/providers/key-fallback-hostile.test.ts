import { domainProvider } from "../../provider/dynamic";
import { forgetConfig } from "../../provider/dynamic/configured";
import { serviceClient, setClientDefaults } from "../../provider/dynamic/connection";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import { configureRequest } from "../support/providers";

/**
 * EMAIL_DELIVERY_API_KEY is also how a stack without a key in its config is configured (the
 * emulator prints it to export), and the spec asks for separate keys per environment: it often
 * holds the key of *another server* of the same service (development) while a stack's saved key
 * (production) is refused: revoked, rotated, or the server suspended.
 */
describe("the fallback key belongs to another server of the same service", () => {
  const emulator = useEmulator();
  const REFUSED = "RevokedKey00000000000001";
  let otherServerKey: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    const server = await clientFor(emulator()).createServer({
      name: `Development ${process.pid}`,
      mode: "Live",
    });
    otherServerKey = server.apiKey!;
  });

  beforeEach(async () => {
    forgetConfig();
    setClientDefaults({ retry: { baseDelayMs: 5, maxDelayMs: 20 } });
    process.env.EMAIL_DELIVERY_API_KEY = otherServerKey;
    await domainProvider.configure(
      configureRequest({ "emailDelivery:baseUrl": emulator().emailApi.url, "emailDelivery:apiKey": REFUSED }),
    );
  });

  afterEach(() => {
    process.env = { ...saved };
    forgetConfig();
  });

  it("a refresh does not read this stack's domain as gone (which would drop it from state)", async () => {
    const { domain } = await clientFor(emulator()).createDomain(uniqueDomain("prod"));
    const outcome = await domainProvider
      .read(String(domain.id), {
        name: domain.name,
        adopt: false,
        dnsRecords: [],
      })
      .then(
        (read) => read.id,
        () => "refused",
      );
    expect(emulator().state.domains.some((d) => d.id === domain.id)).toBe(true);
    expect(outcome).not.toBeUndefined();
  });

  it("a destroy does not report this stack's domain deleted while it still exists", async () => {
    const { domain } = await clientFor(emulator()).createDomain(uniqueDomain("prod"));
    const outcome = await domainProvider.delete(String(domain.id), { name: domain.name }).then(
      () => "reported deleted",
      () => "refused",
    );
    const stillThere = emulator().state.domains.some((d) => d.id === domain.id);
    expect(stillThere && outcome === "reported deleted").toBe(false);
  });

  it("`pulumi up` does not create this stack's domain on the other server", async () => {
    const name = uniqueDomain("prod");
    await domainProvider.create({ name, adopt: false, __provider: "text" }).catch(() => undefined);
    const other = await clientFor(emulator(), { apiKey: otherServerKey }).listDomains();
    expect(other.map((d) => d.name)).not.toContain(name);
  });
});

describe("an unusable EMAIL_DELIVERY_API_KEY when stack config holds a good key", () => {
  const emulator = useEmulator();
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    forgetConfig();
  });

  it("does not stop a stack that never needs it", async () => {
    forgetConfig();
    process.env.EMAIL_DELIVERY_API_KEY = "SomeOtherProjectKey00001\n"; // e.g. `export X="$(cat key)"` of a CRLF file
    await domainProvider.configure(
      configureRequest({
        "emailDelivery:baseUrl": emulator().emailApi.url,
        "emailDelivery:apiKey": emulator().emailApi.apiKey,
      }),
    );
    const outcome = await Promise.resolve()
      .then(() => serviceClient().listDomains())
      .then(
        () => "listed",
        (error: Error) => error.message,
      );
    expect(outcome).toBe("listed");
  });
});
