// The rules the deployment test applies to every file in the image (test/support/image-files.ts): what
// looks like a secret, and what does not merely because its name is close.
import { describe, expect, it } from 'vitest';
import { secretLooking } from '../support/image-files.js';

describe('secretLooking', () => {
  it('flags credentials files and folders wherever they are in a layer', () => {
    expect(secretLooking('opt/loadfeed/.npmrc')).toBe('.npmrc');
    expect(secretLooking('./opt/loadfeed/server/.env')).toBe('.env');
    expect(secretLooking('opt/loadfeed/server/deploy/compose/secrets/')).toBe('secrets/');
    expect(secretLooking('opt/loadfeed/secrets/postgres_password')).toBe('secrets/');
    expect(secretLooking('etc/ssl/private/server.key')).toBe('*.key');
    expect(secretLooking('opt/loadfeed/node_modules/x/test/cert.pem')).toBe('*.pem');
    expect(secretLooking('opt/loadfeed/.loadfeed/embedded-postgres/credentials.json')).toBe('.loadfeed/');
    expect(secretLooking('root/credentials.json')).toBe('credentials.json');
    expect(secretLooking('opt/loadfeed/.loadfeed/')).toBe('.loadfeed/');
  });

  it('lets through names that only resemble them', () => {
    for (const path of [
      'opt/loadfeed/server/dist/keys/create.js',
      'opt/loadfeed/node_modules/pg/lib/crypto/sasl.js',
      'opt/loadfeed/node_modules/dotenv-like/.envrc.js',
      'opt/loadfeed/server/dist/cli/secrets-help.js',
      'usr/share/loadfeed/debs',
      'opt/loadfeed/node_modules/x/keymap.json',
    ]) {
      expect(secretLooking(path)).toBeUndefined();
    }
  });
});
