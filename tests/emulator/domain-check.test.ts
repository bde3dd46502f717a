import { createClient, DnsRecord } from "../../provider/client";
import { Emulator } from "../../emulator";
import { clientFor, useEmulator } from "../support/emulator";
import { ALL_CHECKS_OK } from "../support/checks";

/**
 * The domain check end to end: records are published through the Cloudflare stand-in (as the
 * Cloudflare provider would), the emulator's DNS server serves them, and `domains/check` resolves
 * them with real DNS queries and applies Postal's rules.
 */

/** TXT content the way Cloudflare wants it: quoted character-strings of at most 255 bytes. */
const quoted = (value: string) => (value.match(/.{1,255}/g) ?? [""]).map((part) => `"${part}"`).join(" ");

async function publish(
  emulator: Emulator,
  records: { type: string; name: string; content: string; priority?: number }[],
) {
  const zone = emulator.cloudflare.zones[0];
  for (const record of records) {
    const response = await fetch(`${emulator.cloudflare.url}/zones/${zone.id}/dns_records`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${emulator.cloudflare.apiToken}`,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ ttl: 300, proxied: false, ...record }),
    });
    const body = (await response.json()) as { success: boolean; errors: unknown[] };
    if (!body.success)
      throw new Error(`publishing ${record.type} ${record.name}: ${JSON.stringify(body.errors)}`);
  }
}

const asCloudflare = (record: DnsRecord) => ({
  type: record.type,
  name: record.name,
  content: record.type === "TXT" ? quoted(record.content) : record.content,
  priority: record.priority,
});

let counter = 0;
async function domainWithRecords(emulator: Emulator, edit: (records: DnsRecord[]) => DnsRecord[] = (r) => r) {
  const client = clientFor(emulator);
  const { domain, dnsRecords } = await client.createDomain(`check${++counter}.example.com`);
  const records = dnsRecords!;
  await publish(emulator, edit(records.map((r) => ({ ...r }))).map(asCloudflare));
  return { client, domain, records, check: () => client.checkDomain(domain.id) };
}

describe("domain check through real DNS", () => {
  const emulator = useEmulator();
  const dkimHost = (records: DnsRecord[]) => records.find((r) => r.purpose === "dkim")!.name;
  const without = (purpose: string) => (records: DnsRecord[]) => records.filter((r) => r.purpose !== purpose);
  const replace = (purpose: string, change: Partial<DnsRecord>) => (records: DnsRecord[]) =>
    records.map((r) => (r.purpose === purpose ? { ...r, ...change } : r));

  it("reports all four OK once the records are published, and stores the statuses", async () => {
    const { check, domain, client } = await domainWithRecords(emulator());
    expect(await check()).toEqual(ALL_CHECKS_OK);
    expect((await client.listDomains()).find((d) => d.id === domain.id)).toMatchObject({
      spfStatus: "OK",
      dkimStatus: "OK",
      mxStatus: "OK",
      returnPathStatus: "OK",
    });
  });

  it("SPF missing", async () => {
    const { check } = await domainWithRecords(emulator(), without("spf"));
    expect(await check()).toEqual({
      ...ALL_CHECKS_OK,
      spfStatus: "Missing",
      spfError: "No SPF record exists for this domain",
    });
  });

  it("SPF without the include", async () => {
    const { check } = await domainWithRecords(emulator(), replace("spf", { content: "v=spf1 a mx ~all" }));
    expect(await check()).toEqual({
      ...ALL_CHECKS_OK,
      spfStatus: "Invalid",
      spfError: "An SPF record exists but it doesn't include spf.postal.example.com",
    });
  });

  it("two DKIM TXT records", async () => {
    const { check, records } = await domainWithRecords(emulator(), (records) => [
      ...records,
      { ...records.find((r) => r.purpose === "dkim")!, content: "v=DKIM1; p=OTHER;" },
    ]);
    expect(await check()).toEqual({
      ...ALL_CHECKS_OK,
      dkimStatus: "Invalid",
      dkimError: `There are 2 records for at ${dkimHost(records)}. There should only be one.`,
    });
  });

  it("wrong DKIM value", async () => {
    const { check, records } = await domainWithRecords(
      emulator(),
      replace("dkim", { content: "v=DKIM1; t=s; h=sha256; p=AAAA;" }),
    );
    expect(await check()).toEqual({
      ...ALL_CHECKS_OK,
      dkimStatus: "Invalid",
      dkimError: `The DKIM record at ${dkimHost(records)} does not match the record we have provided. Please check it has been copied correctly.`,
    });
  });

  it("no MX", async () => {
    const { check, domain } = await domainWithRecords(emulator(), without("mx"));
    expect(await check()).toEqual({
      ...ALL_CHECKS_OK,
      mxStatus: "Missing",
      mxError: `There are no MX records for ${domain.name}`,
    });
  });

  it("foreign MX only", async () => {
    const { check } = await domainWithRecords(emulator(), (records) => [
      ...without("mx")(records),
      {
        purpose: "mx",
        type: "MX",
        name: records.find((r) => r.purpose === "spf")!.name,
        content: "mail.other-provider.net",
        priority: 5,
      },
    ]);
    expect(await check()).toEqual({
      ...ALL_CHECKS_OK,
      mxStatus: "Missing",
      mxError: "You have MX records but none of them point to us.",
    });
  });

  it("one of the two MX hosts missing", async () => {
    const { check } = await domainWithRecords(emulator(), (records) =>
      records.filter((r) => !(r.purpose === "mx" && r.content === "mx2.postal.example.com")),
    );
    expect(await check()).toEqual({
      ...ALL_CHECKS_OK,
      mxStatus: "Invalid",
      mxError: "MX record for mx2.postal.example.com are missing and are required.",
    });
  });

  it("wrong return path", async () => {
    const { check, domain } = await domainWithRecords(
      emulator(),
      replace("return_path", { content: "Other.Example.NET" }),
    );
    expect(await check()).toEqual({
      ...ALL_CHECKS_OK,
      returnPathStatus: "Invalid",
      returnPathError: `There is a CNAME record at psrp.${domain.name} but it points to other.example.net which is incorrect. It should point to rp.postal.example.com.`,
    });
  });

  it("accepts TXT content published without quotes (Cloudflare stores it as sent)", async () => {
    const { domain, dnsRecords } = await clientFor(emulator()).createDomain(`plain${++counter}.example.com`);
    await publish(
      emulator(),
      dnsRecords!.map((r) => ({ type: r.type, name: r.name, content: r.content, priority: r.priority })),
    );
    expect(await clientFor(emulator()).checkDomain(domain.id)).toEqual(ALL_CHECKS_OK);
  });
});

describe("domain check with a DKIM record longer than 255 bytes", () => {
  const emulator = useEmulator({ dns: { dkimKeyBits: 2048 } });

  it("is OK when published split into quoted 255-byte strings", async () => {
    const client = createClient({ baseUrl: emulator().emailApi.url, apiKey: emulator().emailApi.apiKey });
    const { domain, dnsRecords } = await client.createDomain("longkey.example.com");
    const dkim = dnsRecords!.find((r) => r.purpose === "dkim")!;
    expect(Buffer.byteLength(dkim.content)).toBeGreaterThan(255);
    const content = quoted(dkim.content);
    expect(content.split('" "')).toHaveLength(2);
    await publish(emulator(), dnsRecords!.map(asCloudflare));
    const stored = emulator().state.cloudflare.records.find((r) => r.name === dkim.name.toLowerCase())!;
    expect(stored.content).toBe(content);
    expect(await client.checkDomain(domain.id)).toEqual(ALL_CHECKS_OK);
  });
});
