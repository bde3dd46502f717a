/**
 * A DKIM key record (RFC 6376 §3.6.1) as verifiers read it at `<selector>._domainkey.<domain>`:
 * the key a signature is checked with, or why there is none. One reading for the verifier of whole
 * messages (`dkim-message.ts`) and for the judgement of what a domain publishes (`dkimKeyProblem`).
 */
import { createPublicKey, type KeyObject } from "node:crypto";
import { unquoteTxt } from "../dns/txt";
import { items, parseTagList } from "./dkim-tags";

/** RFC 8301 §3.2: verifiers MUST NOT consider signatures with RSA keys shorter than this valid. */
export const DKIM_MIN_RSA_BITS = 1024;

/** Why verifiers can use no key from a record. */
export type DkimKeyProblemKind =
  "syntax" | "version" | "hash" | "algorithm" | "service" | "no-key" | "revoked" | "short";

/** A key record, read as verifiers read it. */
export interface DkimKey {
  /** `p=` without white space (empty: revoked). */
  publicKey: string;
  /** The RSA key, when `p=` holds one verifiers accept. */
  key?: KeyObject;
  /** Its modulus length, when `p=` reads as an RSA key. */
  bits?: number;
  /** `t=y`: the domain is testing DKIM; verifiers treat its mail as unsigned (§3.6.1). */
  testing: boolean;
  /** `t=s`: the `i=` of signatures must be `d=` itself. */
  strict: boolean;
  /** Why verifiers cannot use it, with the rule. */
  problem?: { kind: DkimKeyProblemKind; text: string };
}

/**
 * The key in a record's text (its strings joined): a tag=value list (§3.2) whose `v=`, when there,
 * is `DKIM1` and first; `h=` allowing sha256; `k=rsa`; `s=` allowing email; a `p=` that is an RSA
 * key (SubjectPublicKeyInfo as published, or the bare RSAPublicKey §3.6.1 names) of at least 1024
 * bits. An empty `p=` is a revoked key.
 */
export function readDkimKey(text: string): DkimKey {
  const tags = parseTagList(text);
  const flags = items(tags?.get("t"));
  const base = {
    publicKey: (tags?.get("p") ?? "").replace(/\s+/g, ""),
    testing: flags.includes("y"),
    strict: flags.includes("s"),
  };
  const problem = (kind: DkimKeyProblemKind, text: string): DkimKey => ({ ...base, problem: { kind, text } });
  if (!tags) return problem("syntax", "the key record is not a tag=value list (RFC 6376 §3.2)");
  if (tags.has("v") && (tags.get("v") !== "DKIM1" || [...tags.keys()][0] !== "v"))
    return problem("version", "the key record's v= is not DKIM1 first (RFC 6376 §3.6.1)");
  if (tags.has("h") && !items(tags.get("h")).includes("sha256"))
    return problem("hash", `the key record's h=${tags.get("h")} does not allow sha256 (RFC 6376 §3.6.1)`);
  if ((tags.get("k") ?? "rsa").toLowerCase() !== "rsa")
    return problem("algorithm", `the key record is k=${tags.get("k")}, and the service signs with RSA`);
  if (tags.has("s") && !items(tags.get("s")).some((s) => s === "*" || s === "email"))
    return problem("service", `the key record's s=${tags.get("s")} does not allow email (RFC 6376 §3.6.1)`);
  if (!tags.has("p")) return problem("no-key", "the key record has no p= (RFC 6376 §3.6.1)");
  if (base.publicKey === "") return problem("revoked", "the key is revoked: p= is empty (RFC 6376 §3.6.1)");
  const der = Buffer.from(base.publicKey, "base64");
  const key = rsaKey(der, "spki") ?? rsaKey(der, "pkcs1");
  if (!key) return problem("no-key", "p= is not an RSA public key (RFC 6376 §3.6.1)");
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < DKIM_MIN_RSA_BITS)
    return {
      ...problem(
        "short",
        `the key has ${bits} bits: verifiers refuse keys under ${DKIM_MIN_RSA_BITS} (RFC 8301 §3.2)`,
      ),
      bits,
    };
  return { ...base, key, bits };
}

function rsaKey(der: Buffer, type: "spki" | "pkcs1"): KeyObject | undefined {
  try {
    const key = createPublicKey({ key: der, format: "der", type });
    return key.asymmetricKeyType === "rsa" ? key : undefined;
  } catch {
    return undefined;
  }
}

/** Why signatures made with the service's key cannot pass against what a domain serves. */
export interface DkimKeyProblem {
  /** What verifiers do with it, one sentence with the RFC. */
  receivers: string;
  /** What to change. */
  fix: string;
}

/**
 * Whether the TXT records served at the selector let the service's signatures pass: exactly one
 * record, a key verifiers accept (`readDkimKey`), not in testing mode (`t=y`), and the very key the
 * service signs with (`expected`'s `p=`). Undefined when it does.
 */
export function dkimKeyProblem(served: readonly string[], expected: string): DkimKeyProblem | undefined {
  const publish = "Publish the service's record exactly (the domain's `dnsRecords`, purpose dkim).";
  if (served.length === 0)
    return {
      receivers: "no key record is served there: every signature fails (permerror, RFC 6376 §6.1.2)",
      fix: publish,
    };
  if (served.length > 1)
    return {
      receivers: `${served.length} TXT records are served there: verifiers may take either (RFC 6376 §3.6.2.2), and the service accepts exactly one`,
      fix: "Remove every record there but the service's.",
    };
  const key = readDkimKey(served[0]);
  if (key.problem)
    return { receivers: `verifiers can use no key from it: ${key.problem.text}`, fix: publish };
  if (key.testing)
    return {
      receivers: "it says t=y (testing): verifiers treat the domain's mail as unsigned (RFC 6376 §3.6.1)",
      fix: "Remove t=y, or publish the service's record exactly.",
    };
  // Quoted as Cloudflare stores it, or as the service gave it: either way its `p=` is the key.
  const wanted = readDkimKey(unquoteTxt(expected)).publicKey;
  if (wanted === "")
    return {
      receivers: "the record the service asked for holds no key to compare what is served with",
      fix: "Give the domain's records as the service returned them (its `dnsRecords` output).",
    };
  if (key.publicKey !== wanted)
    return {
      receivers:
        "it holds another key than the one the service signs with (an old one?): every signature fails (RFC 6376 §6.1.3)",
      fix: "Replace its content with the service's record.",
    };
  return undefined;
}
