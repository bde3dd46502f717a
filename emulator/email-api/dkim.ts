import { generateKeyPair, generateKeyPairSync } from "node:crypto";
import { promisify } from "node:util";

const generateKeyPairAsync = promisify(generateKeyPair);

export interface DkimKey {
  /** Base64 DER SubjectPublicKeyInfo: what Postal puts after `p=`. */
  publicKey: string;
  privateKeyPem: string;
}

/**
 * A real RSA key pair, made asynchronously so key generation never blocks other requests.
 * Postal strips the PEM armour and newlines from the public key; base64 of the DER is the same.
 */
export async function generateDkimKey(bits: number): Promise<DkimKey> {
  const { publicKey, privateKey } = await generateKeyPairAsync("rsa", {
    modulusLength: bits,
    publicKeyEncoding: { type: "spki", format: "der" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  });
  return { publicKey: publicKey.toString("base64"), privateKeyPem: privateKey };
}

/**
 * The size of the installation's own key (Postal's `signing.key`, which its guide makes with 2048
 * bits): the smallest RFC 8301 allows, so that making it at every start costs little.
 */
export const INSTALLATION_KEY_BITS = 1024;

/** `Domain#dkim_record`, with its trailing `;`. */
export function dkimRecordValue(publicKey: string): string {
  return `v=DKIM1; t=s; h=sha256; p=${publicKey};`;
}

/** `generateDkimKey`, at once: for a key needed in the middle of a request (it takes a few ms). */
export function generateDkimKeySync(bits: number): DkimKey {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", {
    modulusLength: bits,
    publicKeyEncoding: { type: "spki", format: "der" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  });
  return { publicKey: publicKey.toString("base64"), privateKeyPem: privateKey };
}
