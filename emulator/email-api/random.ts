import { randomInt } from "node:crypto";

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";

export const alphabets = {
  upperLetters: UPPER,
  lowerAlphanumeric: LOWER + DIGITS,
  alphanumeric: UPPER + LOWER + DIGITS,
};

export function randomString(alphabet: string, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += alphabet[randomInt(alphabet.length)];
  return text;
}

/** Postal's `random_string ... unique: true`: draw again until `taken` says no. */
export function uniqueRandomString(
  alphabet: string,
  length: number,
  taken: (candidate: string) => boolean,
): string {
  for (;;) {
    const candidate = randomString(alphabet, length);
    if (!taken(candidate)) return candidate;
  }
}
