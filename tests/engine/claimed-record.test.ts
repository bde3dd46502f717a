import { quoteTxt, unquoteTxt } from "../../provider/dns";
import { providerLoaderText } from "../../provider/dynamic/loader";
import { useEmulator } from "../support/emulator";
import {
  isHostCallError,
  ProviderHost,
  Props,
  rpcSecret,
  startProviderHost,
  urnFor,
} from "../support/provider-host";

/**
 * A claimed record as the engine runs it: the stored loader text, loaded by the real
 * dynamic-provider host, configured only through Configure with the stack's Cloudflare settings
 * (the token wrapped as a secret, as the engine sends it) and the DNS server its SPF checks ask,
 * one fresh host per Pulumi command.
 */
const emulator = useEmulator();
const text = providerLoaderText("claimedRecordProvider");
const urn = urnFor("email-delivery:ClaimedDnsRecord", "mail-spf");
let hosts: ProviderHost[] = [];

/** A new Pulumi command: a fresh host, configured with the stack config. */
async function command(config: Props = cloudflareConfig()): Promise<ProviderHost> {
  const host = await startProviderHost();
  hosts.push(host);
  await host.configure(config);
  return host;
}

const cloudflareConfig = (): Props => ({
  "cloudflare:baseUrl": emulator().cloudflare.url,
  "cloudflare:apiToken": rpcSecret(emulator().cloudflare.apiToken),
  // The merge's SPF check resolves through the emulator's DNS server, never elsewhere.
  "emailDelivery:dnsResolver": emulator().dns.address,
});

async function zone(method: string, path = "", body?: unknown): Promise<Record<string, unknown>> {
  const zoneId = emulator().cloudflare.zones[0].id;
  const response = await fetch(`${emulator().cloudflare.url}/zones/${zoneId}/dns_records${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${emulator().cloudflare.apiToken}`,
      "Content-Type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return ((await response.json()) as { result: Record<string, unknown> }).result;
}

const inputs = (name: string): Props => ({
  zoneId: emulator().cloudflare.zones[0].id,
  purpose: "spf",
  name,
  type: "TXT",
  content: quoteTxt("v=spf1 a mx include:spf.postal.example.com ~all"),
  ttl: 300,
  comment: "pulumi email-delivery/test: email spf",
  policy: "merge",
  owner: "email-delivery/test",
  __provider: text,
});

afterEach(async () => {
  await Promise.all(hosts.map((host) => host.stop()));
  hosts = [];
});

describe("ClaimedDnsRecord through the real provider host", () => {
  it("merges into the user's SPF record in one command and takes the include out in the next, never showing the token", async () => {
    const name = `engine-merge-${process.pid}.example.com`;
    const theirs = await zone("POST", "", {
      name,
      type: "TXT",
      content: quoteTxt("v=spf1 include:_spf.google.com -all"),
      ttl: 3600,
      comment: "office",
    });

    const up = await command();
    const checked = await up.check(urn, {}, inputs(name));
    expect(checked.failures).toEqual([]);
    const created = await up.create(urn, checked.inputs);
    expect(created.id).toBe(theirs.id);
    expect(created.properties).toMatchObject({
      ownership: "merged",
      added: ["spf.postal.example.com"],
      __provider: text,
    });
    const merged = await zone("GET", `/${String(theirs.id)}`);
    expect(unquoteTxt(String(merged.content))).toBe(
      "v=spf1 include:_spf.google.com include:spf.postal.example.com -all",
    );
    expect(merged).toMatchObject({ ttl: 3600, comment: "office" });

    // `pulumi destroy`: its own host, configured from the config saved at the last `up`.
    const destroy = await command();
    await destroy.delete(created.id, urn, created.properties);
    const after = await zone("GET", `/${String(theirs.id)}`);
    expect(unquoteTxt(String(after.content))).toBe("v=spf1 include:_spf.google.com -all");

    for (const host of hosts) expect(host.output()).not.toContain(emulator().cloudflare.apiToken);
    expect(JSON.stringify(created.properties)).not.toContain(emulator().cloudflare.apiToken);
  });

  it("without a Cloudflare token, fails naming where to set it, and changes nothing", async () => {
    const name = `engine-no-token-${process.pid}.example.com`;
    const host = await command({ "cloudflare:baseUrl": emulator().cloudflare.url });
    const checked = await host.check(urn, {}, inputs(name));
    const error = await host.create(urn, checked.inputs).catch((e: unknown) => e);
    expect(isHostCallError(error)).toBe(true);
    expect((error as Error).message).toContain(
      "`pulumi config set --secret cloudflare:apiToken …`, or in the CLOUDFLARE_API_TOKEN environment variable",
    );
    expect(await zone("GET", `?name.exact=${name}`)).toEqual([]);
  });
});
