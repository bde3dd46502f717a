import * as pulumi from "@pulumi/pulumi";
import { GetDomainResult, getDomain, getDomainOutput } from "../../provider";
import { KEY_FRAGMENT_LENGTH } from "../../provider/client/redact";
import { publishRecords } from "../support/cloudflare";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";

/**
 * `getDomain` called as a program calls it, against the emulator: the connection comes from the
 * program's stack config (`pulumi.runtime`'s config, as the engine hands it to a program), else
 * the environment. The domains are seeded in the emulator (or made by another client), as another
 * stack's `Domain` would have made them.
 */

const API_KEY = "LookupApiKeyQ7xW3mL9pK2z";
const emulator = useEmulator({ apiKey: API_KEY });

const ENV_KEYS = ["EMAIL_DELIVERY_BASE_URL", "EMAIL_DELIVERY_API_KEY"] as const;
const savedEnv = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));

/** The stack config a program would see; unset keys are left out. */
function stackConfig(config: { baseUrl?: string; apiKey?: string }): void {
  const values: Record<string, string> = {};
  if (config.baseUrl !== undefined) values["emailDelivery:baseUrl"] = config.baseUrl;
  if (config.apiKey !== undefined) values["emailDelivery:apiKey"] = config.apiKey;
  pulumi.runtime.setAllConfig(values, "emailDelivery:apiKey" in values ? ["emailDelivery:apiKey"] : []);
}

beforeEach(() => {
  for (const key of ENV_KEYS) delete process.env[key];
  stackConfig({ baseUrl: emulator().emailApi.url, apiKey: API_KEY });
});

afterAll(() => {
  for (const key of ENV_KEYS) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
  pulumi.runtime.setAllConfig({});
});

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

/** An output's value, read as the runtime reads it (rejected when its apply threw). */
function outputValue<T>(output: pulumi.Output<T>): Promise<T> {
  return (output as unknown as { promise(): Promise<T> }).promise();
}

/** True when the text holds the key, or any run of KEY_FRAGMENT_LENGTH of its characters, in any case. */
function holdsKey(text: string, key: string): boolean {
  const lower = text.toLowerCase();
  for (let start = 0; start + KEY_FRAGMENT_LENGTH <= key.length; start++) {
    if (lower.includes(key.slice(start, start + KEY_FRAGMENT_LENGTH).toLowerCase())) return true;
  }
  return false;
}

/** Everything an error carries that could reach a log: message, stack, and its causes. */
function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof Error) {
      parts.push(current.message, current.stack ?? "", JSON.stringify({ ...current }));
      current = current.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join("\n");
}

describe("getDomain: a domain made elsewhere", () => {
  it("is found by name with its id, uuid, name and statuses (null before any check), reading one list", async () => {
    const name = uniqueDomain("lookup");
    const made = await emulator().emailApi.addDomain(name);
    emulator().requests.clear();

    const found = await getDomain({ name });

    expect(found).toEqual<GetDomainResult>({
      domainId: made.id,
      uuid: made.uuid,
      name,
      spfStatus: null,
      dkimStatus: null,
      mxStatus: null,
      returnPathStatus: null,
      createdAt: made.created_at,
      verified: false,
    });
    expect(found.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(emulator().requests.counts()).toEqual({ "domains/list": 1 });
  });

  it("shows the statuses of the service's last check: failing before the records exist, OK (verified) after", async () => {
    const client = clientFor(emulator());
    const name = uniqueDomain("checked");
    const made = await client.createDomain(name);

    const before = await client.checkDomain(made.domain.id);
    expect(before.spfStatus).not.toBe("OK");
    const failing = await getDomain({ name });
    expect(failing).toMatchObject({
      domainId: made.domain.id,
      spfStatus: before.spfStatus,
      dkimStatus: before.dkimStatus,
      mxStatus: before.mxStatus,
      returnPathStatus: before.returnPathStatus,
      verified: false,
    });

    await publishRecords(emulator(), made.dnsRecords!);
    const after = await client.checkDomain(made.domain.id);
    expect(after).toMatchObject({
      spfStatus: "OK",
      dkimStatus: "OK",
      mxStatus: "OK",
      returnPathStatus: "OK",
    });
    emulator().requests.clear();
    expect(await getDomain({ name })).toMatchObject({
      domainId: made.domain.id,
      spfStatus: "OK",
      dkimStatus: "OK",
      mxStatus: "OK",
      returnPathStatus: "OK",
      verified: true,
    });
    // It reads; it never checks (the statuses are the managing stack's last check).
    expect(emulator().requests.counts()).toEqual({ "domains/list": 1 });
  });

  it("is not verified while one of the four checks is not OK", async () => {
    const client = clientFor(emulator());
    const name = uniqueDomain("partial");
    const made = await client.createDomain(name);
    await publishRecords(
      emulator(),
      made.dnsRecords!.filter((record) => record.purpose !== "return_path"),
    );
    const check = await client.checkDomain(made.domain.id);
    expect(check).toMatchObject({ spfStatus: "OK", dkimStatus: "OK", mxStatus: "OK" });
    expect(check.returnPathStatus).not.toBe("OK");
    expect(await getDomain({ name })).toMatchObject({
      returnPathStatus: check.returnPathStatus,
      verified: false,
    });
  });

  it("works as an output, and reads the environment when the stack config has no settings", async () => {
    const name = uniqueDomain("env");
    const made = await emulator().emailApi.addDomain(name, { verified: true });
    stackConfig({});
    process.env.EMAIL_DELIVERY_BASE_URL = emulator().emailApi.url;
    process.env.EMAIL_DELIVERY_API_KEY = API_KEY;
    const found = await outputValue(getDomainOutput({ name: pulumi.output(name) }));
    expect(found).toMatchObject({ domainId: made.id, uuid: made.uuid, name, verified: true });
  });
});

describe("getDomain: failures", () => {
  it("a missing domain names the domain, the service's base URL and what to check", async () => {
    const name = uniqueDomain("missing");
    const error = await failure(getDomain({ name }));
    const url = emulator().emailApi.url;
    expect(error.message).toBe(
      `Domain "${name}" was not found on the email service at ${url} (among the domains of the server ` +
        "this stack's API key belongs to). getDomain only reads a domain another stack manages: check that " +
        "the stack that manages it has created it (`pulumi up` there) under exactly this name, and that this " +
        "stack's `emailDelivery:baseUrl` and `emailDelivery:apiKey` (or EMAIL_DELIVERY_BASE_URL and " +
        "EMAIL_DELIVERY_API_KEY) point at the same server as that stack's: a key of another server sees other domains.",
    );
  });

  it("a domain of another server of the same service is not found with this stack's key", async () => {
    const client = clientFor(emulator());
    const server = await client.createServer({ name: `other-${process.pid}`, mode: "Live" });
    const name = uniqueDomain("elsewhere");
    await clientFor(emulator(), { apiKey: server.apiKey }).createDomain(name);
    const error = await failure(getDomain({ name }));
    expect(error.message).toContain(`Domain "${name}" was not found`);
    expect(error.message).toContain("a key of another server sees other domains");
    expect(holdsKey(errorText(error), server.apiKey!)).toBe(false);
  });

  it.each<[unknown, string]>([
    ["Mail.Example.com", 'name: must be lowercase (the service refuses upper case): use "mail.example.com"'],
    ["mail", 'name: must have at least two labels, e.g. "mail.example.com"'],
    ["mail.example.com.", 'name: must not end with a dot: use "mail.example.com"'],
    ["", "name: must not be empty"],
    ["xn--zz.example", 'name: has a label that starts with "xn--" but is not valid punycode'],
    [42, "name: must be a string, the domain's name"],
    [undefined, "name: must be a string, the domain's name"],
  ])("a bad name (%j) fails naming `name` and the reason, before any request", async (name, reason) => {
    emulator().requests.clear();
    const error = await failure(getDomain({ name } as { name: string }));
    expect(error.message).toContain(reason);
    expect(error.message).toMatch(/^getDomain\(\{ name: .* \}\): name: /);
    expect(error.message).toMatch(/Nothing was sent\.$/);
    expect(emulator().requests.all()).toEqual([]);
  });

  it("a missing setting names the stack config key and the environment variable, and nothing is sent", async () => {
    emulator().requests.clear();
    stackConfig({ apiKey: API_KEY });
    expect((await failure(getDomain({ name: "mail.example.com" }))).message).toBe(
      "The email delivery base URL is not configured: run `pulumi config set emailDelivery:baseUrl …` " +
        "for this stack, or set the EMAIL_DELIVERY_BASE_URL environment variable.",
    );
    stackConfig({ baseUrl: emulator().emailApi.url });
    const missingKey = await failure(getDomain({ name: "mail.example.com" }));
    expect(missingKey.message).toBe(
      "The email delivery API key is not configured: run `pulumi config set --secret emailDelivery:apiKey …` " +
        "for this stack, or set the EMAIL_DELIVERY_API_KEY environment variable.",
    );
    expect(emulator().requests.all()).toEqual([]);
  });

  it("the key never appears: not in a not-found, an auth failure (the service echoes the key) or a key that cannot be sent", async () => {
    const wrongKey = "WrongKeyZ9y8X7w6V5u4T3s2";
    const errors: Error[] = [];

    errors.push(await failure(getDomain({ name: uniqueDomain("absent") })));

    stackConfig({ baseUrl: emulator().emailApi.url, apiKey: wrongKey });
    const auth = await failure(getDomain({ name: "mail.example.com" }));
    expect(auth.message).toContain("could not read the domains of the email service at");
    expect(auth.message).toContain("domains/list failed (auth)");
    expect(auth.message).toContain(
      "The email service refused the API key from stack config `emailDelivery:apiKey` (InvalidServerAPIKey)",
    );
    // A program's lookup runs with the stack config as it is now: no rotated key, no advice about one.
    expect(auth.message).not.toContain("rotated");
    errors.push(auth);

    stackConfig({});
    process.env.EMAIL_DELIVERY_BASE_URL = emulator().emailApi.url;
    process.env.EMAIL_DELIVERY_API_KEY = wrongKey;
    const authFromEnv = await failure(getDomain({ name: "mail.example.com" }));
    expect(authFromEnv.message).toContain(
      "The email service refused the API key from the EMAIL_DELIVERY_API_KEY environment variable",
    );
    errors.push(authFromEnv);

    emulator().requests.clear();
    stackConfig({ baseUrl: emulator().emailApi.url, apiKey: `${API_KEY}\n` });
    const unsendable = await failure(getDomain({ name: "mail.example.com" }));
    expect(unsendable.message).toContain(
      "The email delivery API key from stack config `emailDelivery:apiKey` ends with a line break",
    );
    expect(emulator().requests.all()).toEqual([]);
    errors.push(unsendable);

    // A key pasted into the base URL is not repeated by the not-found message either.
    stackConfig({ baseUrl: `${emulator().emailApi.url}/${API_KEY}`, apiKey: API_KEY });
    errors.push(await failure(getDomain({ name: "mail.example.com" })));

    for (const error of errors) {
      const text = errorText(error);
      expect(holdsKey(text, API_KEY)).toBe(false);
      expect(holdsKey(text, wrongKey)).toBe(false);
    }
  });
});
