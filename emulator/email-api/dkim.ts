import { generateKeyPair } from "node:crypto";
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

/** `Domain#dkim_record`, with its trailing `;`. */
export function dkimRecordValue(publicKey: string): string {
  return `v=DKIM1; t=s; h=sha256; p=${publicKey};`;
}
