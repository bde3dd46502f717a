import { generateKeyPairSync } from "node:crypto";
import type { DnsRecord } from "../../provider/client";
import type { ReceiverDns } from "../../provider/receivers/receiver-dns";

/**
 * A table of DNS for the receivers' model (provider/receivers), answering as node:dns does: records,
 * ENODATA for a name that exists without that type, ENOTFOUND for a name that does not, and a
 * failure (ESERVFAIL) for a name listed in `failing`. Names compare without case.
 */
export type DnsTable = Record<string, Partial<Record<"TXT" | "A" | "AAAA" | "MX" | "CNAME", string[]>>>;

export function tableResolver(table: DnsTable, failing: readonly string[] = []): ReceiverDns {
  const lower = new Map(Object.entries(table).map(([name, types]) => [name.toLowerCase(), types]));
  const answer = async (name: string, type: "TXT" | "A" | "AAAA" | "MX"): Promise<string[]> => {
    let current = name.toLowerCase();
    for (let hop = 0; hop < 8; hop++) {
      if (failing.includes(current)) throw Object.assign(new Error("SERVFAIL"), { code: "ESERVFAIL" });
      const types = lower.get(current);
      if (!types) throw Object.assign(new Error("NXDOMAIN"), { code: "ENOTFOUND" });
      if (types[type]?.length) return types[type]!;
      if (!types.CNAME) throw Object.assign(new Error("NODATA"), { code: "ENODATA" });
      current = types.CNAME[0].toLowerCase();
    }
    throw new Error("CNAME loop");
  };
  return {
    txt: async (name) => (await answer(name, "TXT")).map((text) => [text]),
    a: (name) => answer(name, "A"),
    aaaa: (name) => answer(name, "AAAA"),
    mx: async (name) => (await answer(name, "MX")).map((exchange) => ({ exchange, priority: 10 })),
    cname: async (name) => {
      if (failing.includes(name.toLowerCase()))
        throw Object.assign(new Error("SERVFAIL"), { code: "ESERVFAIL" });
      const types = lower.get(name.toLowerCase());
      if (!types) throw Object.assign(new Error("NXDOMAIN"), { code: "ENOTFOUND" });
      return types.CNAME ?? [];
    },
  };
}

/** A real RSA public key, base64 DER SubjectPublicKeyInfo (what `p=` holds). */
export function dkimPublicKey(bits = 2048): string {
  const { publicKey } = generateKeyPairSync("rsa", { modulusLength: bits });
  return publicKey.export({ type: "spki", format: "der" }).toString("base64");
}

export const SERVICE_KEY = dkimPublicKey();
export const SERVICE_DKIM = `v=DKIM1; t=s; h=sha256; p=${SERVICE_KEY};`;
export const INCLUDE = "spf.postal.example.com";

/** What a Postal installation publishes in its own DNS (as the emulator serves it). */
export const INSTALLATION: DnsTable = {
  [INCLUDE]: { TXT: ["v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 ~all"] },
  "rp.postal.example.com": {
    TXT: [`v=spf1 a mx include:${INCLUDE} ~all`],
    A: ["192.0.2.1"],
    AAAA: ["2001:db8::1"],
    MX: ["mx1.postal.example.com"],
  },
  "mx1.postal.example.com": { A: ["192.0.2.11"], AAAA: ["2001:db8::11"] },
};

/** The records the service asks `domain` to publish. */
export function serviceRecords(domain: string): DnsRecord[] {
  return [
    { purpose: "spf", type: "TXT", name: domain, content: `v=spf1 a mx include:${INCLUDE} ~all` },
    { purpose: "dkim", type: "TXT", name: `postal-abc123._domainkey.${domain}`, content: SERVICE_DKIM },
    { purpose: "return_path", type: "CNAME", name: `psrp.${domain}`, content: "rp.postal.example.com" },
    { purpose: "mx", type: "MX", name: domain, content: "mx1.postal.example.com", priority: 10 },
  ];
}

/** `domain` publishing exactly what the service asks, beside the installation's DNS. */
export function publishedAsAsked(domain: string, extra: DnsTable = {}): DnsTable {
  const table: DnsTable = {
    ...INSTALLATION,
    [domain]: { TXT: [`v=spf1 a mx include:${INCLUDE} ~all`], MX: ["mx1.postal.example.com"] },
    [`postal-abc123._domainkey.${domain}`]: { TXT: [SERVICE_DKIM] },
    [`psrp.${domain}`]: { CNAME: ["rp.postal.example.com"] },
  };
  for (const [name, types] of Object.entries(extra)) table[name] = { ...table[name], ...types };
  return table;
}
