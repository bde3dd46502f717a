import { domainProvider } from "../../provider/dynamic";
import { cloudflareSetting } from "../../provider/dynamic/cloudflare-setting";
import { forgetConfig } from "../../provider/dynamic/configured";
import { serviceClient, setClientDefaults } from "../../provider/dynamic/connection";
import { useEmulator } from "../support/emulator";
import { envelope, startScriptedServer } from "../support/scripted-server";
import { configureRequest, failure } from "../support/providers";

/**
 * The first line of every error a user's settings cause names the setting and where its value came
 * from, what is wrong, and what to do; advice that fits only some cases (a rotated key) comes after
 * the service's own words, and only where it can fit.
 */
describe("errors of the connection settings", () => {
  const emulator = useEmulator();
  const WRONG_KEY = "WrongKey0000000000000001";
  const WRONG_ROTATED = "WrongKey0000000000000002";
  const saved = { ...process.env };
  const inputs = { name: "refused.example.com", adopt: false };

  beforeAll(() => setClientDefaults({ retry: { baseDelayMs: 5, maxDelayMs: 20 } }));
  beforeEach(() => {
    forgetConfig();
    for (const env of [
      "EMAIL_DELIVERY_BASE_URL",
      "EMAIL_DELIVERY_API_KEY",
      "EMAIL_DELIVERY_ROTATED_API_KEY",
      "CLOUDFLARE_API_TOKEN",
      "CLOUDFLARE_BASE_URL",
    ])
      delete process.env[env];
  });
  afterAll(() => {
    process.env = saved;
    forgetConfig();
    setClientDefaults({});
  });

  const configure = (config: Record<string, string>) => domainProvider.configure(configureRequest(config));
  const lines = (error: Error) => error.message.split("\n");
  const thrown = (call: () => unknown) => {
    try {
      call();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error("expected the call to throw");
  };

  it("a key from stack config the service refuses: which key, what to set, then the service's words, then rotation advice worded as such", async () => {
    await configure({ "emailDelivery:baseUrl": emulator().emailApi.url, "emailDelivery:apiKey": WRONG_KEY });
    emulator().requests.clear();
    const error = await failure(domainProvider.create(inputs));
    // The create is the first request (nothing is listed before it): its refusal is the error.
    expect(
      emulator()
        .requests.all()
        .map((e) => e.endpoint),
    ).toEqual(["domains/create"]);
    expect(lines(error)).toEqual([
      "The email service refused the API key from stack config `emailDelivery:apiKey` (InvalidServerAPIKey): " +
        "set a server API key of type API, from the mail server this stack manages (Postal: the server → Credentials), " +
        "with `pulumi config set --secret emailDelivery:apiKey …`.",
      "domains/create failed (auth): [InvalidServerAPIKey] The API token provided in X-Server-API-Key was not valid.",
      "If this key worked before and you rotated it since: `pulumi refresh` and `pulumi destroy` use the stack config " +
        "saved at the last `pulumi up`, so run `pulumi up` first, pass `--run-program`, or set " +
        "EMAIL_DELIVERY_ROTATED_API_KEY to the new key for that command.",
    ]);
    expect(error.message).not.toContain(WRONG_KEY);
  });

  it("a key from the environment the service refuses: no rotation advice, which concerns saved stack config", async () => {
    await configure({ "emailDelivery:baseUrl": emulator().emailApi.url });
    process.env.EMAIL_DELIVERY_API_KEY = WRONG_KEY;
    emulator().requests.clear();
    const error = await failure(domainProvider.create(inputs));
    expect(
      emulator()
        .requests.all()
        .map((e) => e.endpoint),
    ).toEqual(["domains/create"]);
    expect(lines(error)).toEqual([
      "The email service refused the API key from the EMAIL_DELIVERY_API_KEY environment variable (InvalidServerAPIKey): " +
        "set it to a server API key of type API, from the mail server this stack manages (Postal: the server → Credentials).",
      "domains/create failed (auth): [InvalidServerAPIKey] The API token provided in X-Server-API-Key was not valid.",
    ]);
  });

  it("a rotated key refused too: both named, and the one to set", async () => {
    await configure({ "emailDelivery:baseUrl": emulator().emailApi.url, "emailDelivery:apiKey": WRONG_KEY });
    process.env.EMAIL_DELIVERY_ROTATED_API_KEY = WRONG_ROTATED;
    const error = await failure(domainProvider.read("1", { ...inputs, dnsRecords: [] }));
    expect(lines(error)[0]).toBe(
      "The email service refused both API keys, from stack config `emailDelivery:apiKey` and from " +
        "EMAIL_DELIVERY_ROTATED_API_KEY (InvalidServerAPIKey): set EMAIL_DELIVERY_ROTATED_API_KEY to a server API key " +
        "of type API, from the mail server this stack manages (Postal: the server → Credentials).",
    );
    expect(error.message).not.toContain(WRONG_ROTATED);
  });

  it("a suspended server: what to ask for", async () => {
    const server = await startScriptedServer([
      {
        status: 200,
        body: envelope({ code: "ServerSuspended", message: "Mail server has been suspended" }, "error"),
      },
    ]);
    try {
      await configure({ "emailDelivery:baseUrl": server.url, "emailDelivery:apiKey": WRONG_KEY });
      const error = await failure(domainProvider.create(inputs));
      expect(lines(error)[0]).toBe(
        "The email service refuses the API key from stack config `emailDelivery:apiKey` (ServerSuspended): " +
          "its mail server is suspended: have an administrator of the service unsuspend it.",
      );
    } finally {
      await server.close();
    }
  });

  it("a base URL ending in /api/v1: the setting, and to drop the path every request adds", async () => {
    const baseUrl = `${emulator().emailApi.url}/api/v1`;
    await configure({ "emailDelivery:baseUrl": baseUrl, "emailDelivery:apiKey": emulator().emailApi.apiKey });
    const error = await failure(domainProvider.create(inputs));
    expect(lines(error)[0]).toBe(
      `The email delivery base URL ${baseUrl} (stack config \`emailDelivery:baseUrl\`) does not lead to the email ` +
        "service's API: remove /api/v1 from its end: every request adds it.",
    );
  });

  it("a base URL that answers with a web page: the setting, and the service's own address", async () => {
    const server = await startScriptedServer([{ status: 200, body: "<html>Welcome to nginx</html>" }]);
    try {
      await configure({ "emailDelivery:apiKey": emulator().emailApi.apiKey });
      process.env.EMAIL_DELIVERY_BASE_URL = server.url;
      const error = await failure(domainProvider.create(inputs));
      expect(lines(error)[0]).toBe(
        `The email delivery base URL ${server.url} (the EMAIL_DELIVERY_BASE_URL environment variable) does not lead ` +
          "to the email service's API: set it to the service's own address, e.g. https://postal.example.com.",
      );
    } finally {
      await server.close();
    }
  });

  it.each([
    [
      "postal.example.com",
      'The email delivery base URL "postal.example.com" (stack config `emailDelivery:baseUrl`) is not a URL: ' +
        "set it to the service's address, e.g. https://postal.example.com. Nothing was sent.",
    ],
    [
      "ftp://postal.example.com",
      'The email delivery base URL "ftp://postal.example.com" (stack config `emailDelivery:baseUrl`) uses ftp:, ' +
        "not http or https: set it to the service's address, e.g. https://postal.example.com. Nothing was sent.",
    ],
    [
      "https://me:secret@postal.example.com",
      'The email delivery base URL "https://postal.example.com" (stack config `emailDelivery:baseUrl`) holds a user ' +
        "name or password: remove them (the API key is a setting of its own). Nothing was sent.",
    ],
  ])(
    "a base URL that cannot be sent to (%j): the setting, what is wrong, what to set",
    async (baseUrl, message) => {
      await configure({ "emailDelivery:baseUrl": baseUrl, "emailDelivery:apiKey": WRONG_KEY });
      emulator().requests.clear();
      expect(thrown(() => serviceClient())).toBe(message);
      expect(emulator().requests.all()).toEqual([]);
    },
  );

  it("Cloudflare's base URL that cannot be sent to: the setting, and to unset it", async () => {
    await configure({ "cloudflare:baseUrl": "api.cloudflare.com/client/v4", "cloudflare:apiToken": "token" });
    expect(thrown(() => cloudflareSetting("baseUrl"))).toBe(
      'The Cloudflare API base URL "api.cloudflare.com/client/v4" (stack config `cloudflare:baseUrl`) is not a URL: ' +
        "unset it to use Cloudflare's own API, or set it to a URL such as https://api.cloudflare.com/client/v4. " +
        "Nothing was sent.",
    );
  });

  it("no Cloudflare token for the records the package writes: what to set", async () => {
    await configure({});
    expect(thrown(() => cloudflareSetting("apiToken"))).toBe(
      "No Cloudflare API token for the records this package writes itself (adopted, overwritten or merged): " +
        "set the default Cloudflare provider's token with `pulumi config set --secret cloudflare:apiToken …`, or in " +
        "the CLOUDFLARE_API_TOKEN environment variable (an API key with an email is not supported for these records).",
    );
  });
});
