// What an image carries, read the way someone who pulled it could: `podman image save` writes it as a
// docker archive (its manifest, its config with the history and environment, one tar per layer), which is
// unpacked into a folder here. The deployment test looks through it for files that look like secrets and
// for the run's own generated password, in every layer and not only in the final filesystem, since a
// file deleted by a later layer is still in the earlier one.
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { podman } from './compose-podman.js';

/** Names that hold credentials wherever they appear: a rule's label and the entry names it matches, folders first. */
const SECRET_LOOKING: [label: string, pattern: RegExp][] = [
  ['.loadfeed/', /(^|\/)\.loadfeed(\/|$)/],
  ['secrets/', /(^|\/)secrets(\/|$)/],
  ['.npmrc', /(^|\/)\.npmrc$/],
  ['.env', /(^|\/)\.env$/],
  ['*.key', /\.key$/],
  ['*.pem', /\.pem$/],
  ['credentials.json', /(^|\/)credentials\.json$/],
];

/** The rule a path inside an image breaks (its label), or undefined when its name looks harmless. */
export function secretLooking(path: string): string | undefined {
  const name = path.replace(/^\.?\//, '').replace(/\/$/, '');
  return SECRET_LOOKING.find(([, pattern]) => pattern.test(name))?.[0];
}

export interface SavedImage {
  /** Every file of the saved archive, relative to it (manifest.json, the config, the layer tars). */
  files: { path: string; bytes: Buffer }[];
  /** Every entry of every layer (its name without a leading ./), with the layer's path in the archive. */
  entries: { layer: string; name: string }[];
}

/** Saves `image` under `folder` and reads it back: its files (layers gunzipped if compressed) and the layers' entries. */
export async function saveImage(image: string, folder: string): Promise<SavedImage> {
  const archive = join(folder, 'image.tar');
  const unpacked = join(folder, 'image');
  const saved = await podman(['image', 'save', '--format', 'docker-archive', '--output', archive, image]);
  if (saved.code !== 0) throw new Error(`podman image save ${image} exited ${saved.code}: ${saved.stderr}`);
  await mkdir(unpacked, { recursive: true });
  await promisify(execFile)('tar', ['-xf', archive, '-C', unpacked]);
  const files: SavedImage['files'] = [];
  const entries: SavedImage['entries'] = [];
  for (const entry of await readdir(unpacked, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const raw = await readFile(path);
    const bytes = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
    files.push({ path: relative(unpacked, path), bytes });
    // A layer is a tar; GNU tar lists it (compressed or not), and refuses the JSON files.
    const listed = await promisify(execFile)('tar', ['-tf', path], { maxBuffer: 256 << 20 }).catch(() => undefined);
    for (const name of listed?.stdout.split('\n').filter(Boolean) ?? []) entries.push({ layer: relative(unpacked, path), name: name.replace(/^\.\//, '') });
  }
  return { files, entries };
}
