// The shape of an API key: `lf_live_`, a random secret, and a checksum of the secret. The checksum lets
// the server refuse a mistyped or made-up key without a database lookup; the secret's 190 bits make a
// key unguessable. Only the SHA-256 of the whole key is stored.
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { API_KEY_PREFIX } from '@loadfeed/spec';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 base62 characters: log2(62) * 32 ≈ 190 bits, above the 160 DECISIONS.md asks for. */
const SECRET_LENGTH = 32;
/** A CRC-32 in base62 fits in 6 characters. */
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}([0-9A-Za-z]{${SECRET_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);
/** Characters of a key's end shown in its hint: from the checksum, so the hint reveals nothing of the secret. */
const HINT_LENGTH = 4;

function base62(value: number, width: number): string {
  let text = '';
  for (let rest = value; text.length < width; rest = Math.floor(rest / 62)) text = ALPHABET[rest % 62] + text;
  return text;
}

function checksum(secret: string): string {
  return base62(crc32(secret), CHECKSUM_LENGTH);
}

function randomSecret(): string {
  let secret = '';
  while (secret.length < SECRET_LENGTH) {
    for (const byte of randomBytes(SECRET_LENGTH * 2)) {
      // 248 = 4 * 62: bytes above it are dropped so that every character is equally likely.
      if (byte < 248 && secret.length < SECRET_LENGTH) secret += ALPHABET[byte % 62];
    }
  }
  return secret;
}

/** A new random key. */
export function generateKey(): string {
  const secret = randomSecret();
  return API_KEY_PREFIX + secret + checksum(secret);
}

/** Whether `key` has the prefix, the lengths and a checksum that matches its secret. */
export function isWellFormedKey(key: string): boolean {
  const match = KEY_PATTERN.exec(key);
  return match !== null && checksum(match[1]!) === match[2];
}

/** What the database keeps of a key. */
export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** How operators tell keys apart in listings, e.g. `lf_live_…x9Qa`. */
export function keyHint(key: string): string {
  return `${API_KEY_PREFIX}…${key.slice(-HINT_LENGTH)}`;
}
