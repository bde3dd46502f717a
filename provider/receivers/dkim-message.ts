/**
 * DKIM (RFC 6376) over whole RFC 5322 messages with node:crypto only: what a receiver decides for
 * each DKIM-Signature, and how a sender (the emulator, as Postal) makes one. Keys come from an
 * injected TXT lookup, so a test's table or the emulator's DNS serves them. rsa-sha256 only: RFC
 * 8301 forbids rsa-sha1 and keys under 1024 bits. A message is a string hashed as UTF-8; a bare LF
 * is read as CRLF (messages kept in files lose their CRs), as Postal's signer does.
 */
import { createHash, sign, verify } from "node:crypto";
import { readDkimKey } from "./dkim-key";
import { items, parseTagList } from "./dkim-tags";

/** A verifier's result for one signature, in RFC 8601 §2.7.1's words. */
export type DkimResult = "pass" | "fail" | "permerror" | "temperror" | "none";

/** What a verifier decided for one DKIM-Signature (`none`: the message has no signature). */
export interface DkimVerification {
  /** The result. */
  result: DkimResult;
  /** The signing domain (`d=`), when the signature names one. */
  domain?: string;
  /** The selector (`s=`), when the signature names one. */
  selector?: string;
  /** Why, in words. */
  reason: string;
  /** The key record says the domain is testing DKIM (`t=y`, RFC 6376 §3.6.1): do not act on the result. */
  testing?: boolean;
}

/** The TXT records at `name`, each one's strings joined: "nxdomain" for no such name, "error" when DNS failed. */
export type DkimTxtLookup = (name: string) => Promise<string[] | "nxdomain" | "error">;

/** A canonicalization algorithm (RFC 6376 §3.4). */
export type DkimCanonicalization = "simple" | "relaxed";

/** What {@link signDkim} signs, and with what. */
export interface DkimSignOptions {
  /** The message (header, empty line, body), CRLF line endings. */
  message: string;
  /** The signing domain, `d=`. */
  domain: string;
  /** The selector, `s=`: the key is at `<selector>._domainkey.<domain>`. */
  selector: string;
  /** The RSA private key, PEM (PKCS#1 or PKCS#8). */
  privateKeyPem: string;
  /**
   * The header fields to sign, `h=`. Each name signs the last instance not signed yet (§5.4.2); a
   * name with none left signs "no such field", so one added later fails (over-signing, §8.15).
   */
  headers: string[];
  /** `t=`, seconds since 1970. @default now */
  timestamp?: number;
  /** `c=`, header/body. @default "relaxed/relaxed" */
  canonicalization?: `${DkimCanonicalization}/${DkimCanonicalization}`;
  /** `l=`: how many octets of the canonical body to sign. @default all of it (no `l=`) */
  bodyLength?: number;
}

const CRLF = "\r\n";

/** The message's header fields (each with its folding, no final CRLF) and its body (after the empty line). */
export function splitMessage(message: string): { fields: string[]; body: string } {
  const text = message.replace(/\r?\n/g, CRLF);
  const end = text.startsWith(CRLF) ? 0 : text.indexOf(CRLF + CRLF);
  const head = end < 0 ? text : text.slice(0, end);
  const body = end < 0 ? "" : text.slice(end === 0 ? 2 : end + 4);
  const fields: string[] = [];
  for (const line of head.split(CRLF)) {
    if (/^[ \t]/.test(line) && fields.length > 0) fields[fields.length - 1] += CRLF + line;
    else if (line !== "") fields.push(line);
  }
  return { fields, body };
}

/** A header field's name, lowercase (header names are compared without case, §3.4.2). */
export function headerName(field: string): string {
  const colon = field.indexOf(":");
  return (colon < 0 ? field : field.slice(0, colon)).trim().toLowerCase();
}

/** §3.4.1 "simple": the field exactly as it is. */
export const canonicalizeHeaderSimple = (field: string): string => field;

/** §3.4.2 "relaxed": name lowercase, unfolded, whitespace runs one space, none around the colon or at the end. */
export function canonicalizeHeaderRelaxed(field: string): string {
  const colon = field.indexOf(":");
  const value = field.slice(colon + 1).replace(/(?:[ \t]|\r\n(?=[ \t]))+/g, " "); // unfolded too
  return `${headerName(field)}:${value.replace(/^ | $/g, "")}`;
}

/** §3.4.3 "simple": empty lines at the end dropped, one CRLF at the end (an empty body is one CRLF). */
export function canonicalizeBodySimple(body: string): string {
  let end = body.length;
  while (end >= 2 && body.slice(end - 2, end) === CRLF) end -= 2;
  return body.slice(0, end) + CRLF;
}

/** §3.4.4 "relaxed": whitespace runs one space, none at line ends, no empty lines at the end ("" if nothing is left). */
export function canonicalizeBodyRelaxed(body: string): string {
  const lines = body.split(CRLF).map((line) => line.replace(/[ \t]+/g, " ").replace(/ $/, ""));
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.length === 0 ? "" : lines.join(CRLF) + CRLF;
}

const CANONICAL = {
  simple: { header: canonicalizeHeaderSimple, body: canonicalizeBodySimple },
  relaxed: { header: canonicalizeHeaderRelaxed, body: canonicalizeBodyRelaxed },
};
/** The data a signature covers (§3.7): the `h=` fields, then its own field with `b=` empty and no CRLF. */
function signedHeaderData(fields: string[], names: string[], own: string, c: DkimCanonicalization): string {
  const canonical = CANONICAL[c].header;
  const used = new Set<number>();
  let data = "";
  for (const name of names) {
    // The last instance not used yet; none left: the null string (§5.4.2).
    for (let i = fields.length - 1; i >= 0; i--) {
      if (used.has(i) || headerName(fields[i]) !== name) continue;
      used.add(i);
      data += canonical(fields[i]) + CRLF;
      break;
    }
  }
  const colon = own.indexOf(":");
  const emptied = own.slice(colon + 1).replace(/((?:^|;)[ \t\r\n]*b[ \t\r\n]*=)[^;]*/, "$1");
  return data + canonical(own.slice(0, colon + 1) + emptied);
}

function bodyHash(body: string, c: DkimCanonicalization, length?: number): { hash: string; octets: number } {
  const canonical = Buffer.from(CANONICAL[c].body(body), "utf8");
  const signed = length === undefined ? canonical : canonical.subarray(0, length);
  return { hash: createHash("sha256").update(signed).digest("base64"), octets: canonical.length };
}

/**
 * The DKIM-Signature field (no final CRLF) for `options.message`, laid out as Postal lays it out
 * (app/lib/dkim_header.rb: a tag group a line, `b=` in lines of 72 characters).
 */
export function dkimSignatureField(options: DkimSignOptions): string {
  const c = options.canonicalization ?? "relaxed/relaxed";
  const [headerC, bodyC] = c.split("/") as [DkimCanonicalization, DkimCanonicalization];
  const { fields, body } = splitMessage(options.message);
  const names = options.headers.map((name) => name.trim().toLowerCase());
  const t = options.timestamp ?? Math.floor(Date.now() / 1000);
  const l = options.bodyLength === undefined ? "" : ` l=${options.bodyLength};`;
  const bh = bodyHash(body, bodyC, options.bodyLength).hash;
  const head = [
    `DKIM-Signature: v=1; a=rsa-sha256; c=${c};`,
    `d=${options.domain};`,
    `s=${options.selector}; t=${t};${l}`,
    `bh=${bh};`,
    `h=${names.join(":")};`,
    "b=",
  ].join(`${CRLF}\t`);
  const data = signedHeaderData(fields, names, head, headerC);
  const b = sign("sha256", Buffer.from(data, "utf8"), options.privateKeyPem).toString("base64");
  return head + (b.match(/.{1,72}/g) ?? []).join(`${CRLF}\t`);
}

/** The message with a DKIM-Signature field (rsa-sha256) put first, its line endings CRLF. */
export function signDkim(options: DkimSignOptions): string {
  return `${dkimSignatureField(options)}${CRLF}${options.message.replace(/\r?\n/g, CRLF)}`;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A DKIM-Signature's tags checked (§6.1.1), or the verdict when they cannot be used. */
function readSignature(field: string, now: number) {
  const tags = parseTagList(field.slice(field.indexOf(":") + 1));
  const domain = tags?.get("d")?.toLowerCase();
  const selector = tags?.get("s");
  const verdict = (result: DkimResult, reason: string) => ({ result, domain, selector, reason });
  const permerror = (reason: string) => verdict("permerror", reason);
  if (!tags) return permerror("the signature is not a tag=value list");
  const missing = ["v", "a", "b", "bh", "d", "h", "s"].filter((tag) => !tags.has(tag));
  if (missing.length > 0) return permerror(`the signature lacks ${missing.join("=, ")}=`);
  if (tags.get("v") !== "1") return permerror(`unsupported version v=${tags.get("v")}`);
  const a = tags.get("a")!.toLowerCase();
  if (a === "rsa-sha1") return permerror("rsa-sha1 is not accepted (RFC 8301 §3.1)");
  if (a !== "rsa-sha256") return permerror(`unsupported algorithm a=${a}`);
  const [headerC, bodyC = "simple", ...rest] = (tags.get("c") ?? "simple").toLowerCase().split("/");
  const known = (c: string): c is DkimCanonicalization => c === "simple" || c === "relaxed";
  if (!known(headerC) || !known(bodyC) || rest.length > 0) return permerror(`unknown c=${tags.get("c")}`);
  if (tags.has("q") && !items(tags.get("q")).includes("dns/txt")) return permerror("unknown query method q=");
  const names = items(tags.get("h"));
  if (!names.includes("from")) return permerror("h= does not sign From (RFC 6376 §5.4)");
  const [b, bh] = ["b", "bh"].map((tag) => tags.get(tag)!.replace(/[ \t\r\n]+/g, ""));
  if (!BASE64.test(b) || !BASE64.test(bh) || b === "") return permerror("b= or bh= is not base64");
  const l = tags.get("l");
  if (l !== undefined && !/^\d{1,76}$/.test(l)) return permerror("l= is not a number");
  const identity = tags.get("i") ?? `@${domain}`;
  const identityDomain = identity.slice(identity.lastIndexOf("@") + 1).toLowerCase();
  if (identityDomain !== domain && !identityDomain.endsWith(`.${domain}`)) return permerror("i= not in d=");
  const [t, x] = ["t", "x"].map((tag) => (tags.has(tag) ? Number(tags.get(tag)) : undefined));
  if (x !== undefined && t !== undefined && x <= t) return permerror("x= is not after t=");
  if (x !== undefined && x < now) return verdict("fail", `the signature expired (x=${x})`);
  const [length, hashes] = [l === undefined ? undefined : Number(l), { b: Buffer.from(b, "base64"), bh }];
  return { domain: domain!, selector: selector!, headerC, bodyC, names, identityDomain, length, ...hashes };
}

type Verifying = { message: ReturnType<typeof splitMessage>; lookupTxt: DkimTxtLookup; now: number };

async function verifyOne(field: string, { message, lookupTxt, now }: Verifying): Promise<DkimVerification> {
  const signature = readSignature(field, now);
  if ("result" in signature) return signature;
  const { domain, selector } = signature;
  let flag = {}; // `testing`, once the key record is read
  const verdict = (result: DkimResult, reason: string) => ({ result, domain, selector, reason, ...flag });
  const name = `${selector}._domainkey.${domain}`;
  const records = await lookupTxt(name).catch((): "error" => "error");
  if (records === "error") return verdict("temperror", `the key lookup at ${name} failed`);
  if (records === "nxdomain" || records.length === 0) return verdict("permerror", `no key record at ${name}`);
  const record = readDkimKey(records[0]);
  flag = record.testing ? { testing: true } : {};
  if (record.problem || !record.key) return verdict("permerror", record.problem?.text ?? "no usable key");
  if (record.strict && signature.identityDomain !== domain) return verdict("permerror", "t=s: i= not d=");
  const hash = bodyHash(message.body, signature.bodyC, signature.length);
  if (signature.length !== undefined && signature.length > hash.octets)
    return verdict("fail", `l=${signature.length} is longer than the body (${hash.octets} octets)`);
  if (hash.hash !== signature.bh) return verdict("fail", "the body hash did not verify (bh=)");
  const data = signedHeaderData(message.fields, signature.names, field, signature.headerC);
  return verify("sha256", Buffer.from(data, "utf8"), record.key, signature.b)
    ? verdict("pass", `signed by ${domain} (${record.bits}-bit key)`)
    : verdict("fail", "the signature did not verify (b=)");
}

/**
 * Every DKIM-Signature of `message` verified (RFC 6376 §6), in the order they appear, through
 * `lookupTxt` for their keys; one `none` result when there is no signature.
 * @param options.now the time to check `x=` against, seconds since 1970 (@default now)
 */
export async function verifyDkim(
  message: string,
  lookupTxt: DkimTxtLookup,
  options: { now?: number } = {},
): Promise<DkimVerification[]> {
  const parts = splitMessage(message);
  const signatures = parts.fields.filter((field) => headerName(field) === "dkim-signature");
  if (signatures.length === 0) return [{ result: "none", reason: "the message has no DKIM-Signature" }];
  const now = options.now ?? Math.floor(Date.now() / 1000);
  return Promise.all(signatures.map((field) => verifyOne(field, { message: parts, lookupTxt, now })));
}
