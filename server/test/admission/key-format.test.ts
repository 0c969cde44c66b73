import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_KEY_PREFIX } from '@loadfeed/spec';
import { generateKey, hashKey, isWellFormedKey, keyHint } from '../../src/admission/key-format.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('the API key format', () => {
  it('is the fixed prefix lf_live_, a base62 secret of at least 160 bits and a checksum', () => {
    const key = generateKey();
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
    const body = key.slice(API_KEY_PREFIX.length);
    expect(body).toMatch(/^[0-9A-Za-z]+$/);
    const secretBits = (body.length - 6) * Math.log2(62);
    expect(secretBits).toBeGreaterThanOrEqual(160);
    expect(isWellFormedKey(key)).toBe(true);
  });

  it('gives a new key every time', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateKey));
    expect(keys.size).toBe(1000);
  });

  it('refuses any key with one character changed, without asking the database', () => {
    const key = generateKey();
    fc.assert(
      fc.property(fc.integer({ min: API_KEY_PREFIX.length, max: key.length - 1 }), fc.constantFrom(...BASE62), (position, character) => {
        fc.pre(key[position] !== character);
        expect(isWellFormedKey(key.slice(0, position) + character + key.slice(position + 1))).toBe(false);
      }),
    );
  });

  it('refuses anything that is not a whole key', () => {
    const key = generateKey();
    for (const bad of ['', API_KEY_PREFIX, key.slice(0, -1), `${key}x`, key.replace('lf_live_', 'lf_test_'), key.toUpperCase(), ` ${key}`]) {
      expect(isWellFormedKey(bad), bad).toBe(false);
    }
    fc.assert(fc.property(fc.string(), (text) => !isWellFormedKey(text)));
  });

  it('stores a SHA-256 of the key and shows a hint that holds none of the secret', () => {
    const key = generateKey();
    expect(hashKey(key)).toHaveLength(32);
    expect(hashKey(key).equals(hashKey(key))).toBe(true);
    const hint = keyHint(key);
    expect(hint).toBe(`${API_KEY_PREFIX}…${key.slice(-4)}`);
  });
});
