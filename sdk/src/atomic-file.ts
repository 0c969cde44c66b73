// Replacing a file in one step: write a temporary file beside it, flush it to disk, rename it over the
// old one. A reader, or a crash at any moment, sees the old file or the new one, never half of one.
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';

/** Replaces `path` with `lines`, each ending in a newline, written in chunks of about 1 MiB. */
export async function replaceFileWithLines(path: string, lines: Iterable<string>): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const file = await open(temporary, 'w');
  try {
    let chunk = '';
    for (const line of lines) {
      chunk += `${line}\n`;
      if (chunk.length >= 1 << 20) {
        await file.write(chunk);
        chunk = '';
      }
    }
    await file.write(chunk);
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
