// The runtime's refusal of a permission the command needs (Deno without `--allow-net` for the API's host,
// or `--allow-env`, `--allow-read`, `--allow-write` for a copy's file): the command line is what needs
// fixing, so the line names what was refused and the flag that grants it, rather than "unexpected error".
import { dirname } from 'node:path';

/** Deno's names for a denial (`NotCapable` from Deno 2, `PermissionDenied` before). */
const DENIALS = new Set(['NotCapable', 'PermissionDenied']);

/** Deno's wording: `Requires net access to "127.0.0.1:9", run again with the --allow-net flag`. */
const REQUIRES = /^Requires (\w+) access to "([^"]*)", run again with the (--allow-[\w-]+) flag/;

/**
 * The narrowest grant that lets the command go on: the API's host; a copy's folder, where its lock and
 * SQLite's journal files sit beside it; the whole kind otherwise (the command reads several variables).
 */
function grant(kind: string, target: string, flag: string): string {
  if (kind === 'net') return `${flag}=${target}`;
  if (kind === 'read' || kind === 'write') return `${flag}=${dirname(target)}`;
  return flag;
}

/** The line for a permission denial, or undefined for any other error. */
export function describePermissionDenial(error: unknown): string | undefined {
  if (!(error instanceof Error) || !DENIALS.has(error.name)) return undefined;
  const requires = REQUIRES.exec(error.message);
  if (requires === null) return `Deno denied a permission the command needs: ${error.message}`;
  const [, kind, target, flag] = requires as unknown as [string, string, string, string];
  return `Deno denied ${kind} access to ${target}, which the command needs: run it again with ${grant(kind, target, flag)}`;
}
