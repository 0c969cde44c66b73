// server/deploy/compose/compose.yaml as data: parsed, its `${NAME:-default}` values filled from an
// environment, and its services in the order their depends_on allows. The fast test checks the file with
// it; the opt-in deployment test runs the file with podman from the same reading.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const COMPOSE_DIR = fileURLToPath(new URL('../../deploy/compose/', import.meta.url));

export type DependencyCondition = 'service_started' | 'service_healthy' | 'service_completed_successfully';

export interface ComposeService {
  image: string;
  command?: string[];
  environment?: Record<string, string>;
  env_file?: string[];
  secrets?: (string | { source: string; target?: string })[];
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: DependencyCondition }>;
  healthcheck?: { test: string[]; interval?: string; timeout?: string; retries?: number };
  restart?: string;
  read_only?: boolean;
  tmpfs?: string[];
  stop_grace_period?: string;
  networks?: Record<string, { ipv4_address?: string }>;
}

export interface ComposeFile {
  name: string;
  services: Record<string, ComposeService>;
  secrets: Record<string, { file: string }>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, { ipam?: { config?: { subnet: string }[] } }>;
}

/** The compose file as compose reads it: YAML with anchors, then `${NAME}` and `${NAME:-default}` filled. */
export async function readComposeFile(env: Record<string, string | undefined> = {}, dir = COMPOSE_DIR): Promise<ComposeFile> {
  const text = await readFile(`${dir}/compose.yaml`, 'utf8');
  return interpolate(parse(text, { merge: true }), env) as ComposeFile;
}

function interpolate(value: unknown, env: Record<string, string | undefined>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g, (_whole, name: string, fallback: string | undefined) => {
      const given = env[name];
      if (given !== undefined && given !== '') return given;
      if (fallback === undefined) throw new Error(`compose.yaml uses \${${name}} with no default and it is not set`);
      return fallback;
    });
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, env));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, env)]));
  return value;
}

/** The services in an order where each comes after everything it depends on; a cycle or an unknown name throws. */
export function startOrder(file: ComposeFile): string[] {
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string, from?: string): void => {
    if (order.includes(name)) return;
    const service = file.services[name];
    if (service === undefined) throw new Error(`${from} depends on ${name}, which is not a service`);
    if (visiting.has(name)) throw new Error(`depends_on has a cycle through ${name}`);
    visiting.add(name);
    for (const dependency of Object.keys(service.depends_on ?? {})) visit(dependency, name);
    visiting.delete(name);
    order.push(name);
  };
  for (const name of Object.keys(file.services)) visit(name);
  return order;
}

/** Every service `name` waits for, directly or through others. */
export function dependenciesOf(file: ComposeFile, name: string): Set<string> {
  const found = new Set<string>();
  const walk = (current: string): void => {
    for (const dependency of Object.keys(file.services[current]?.depends_on ?? {})) {
      if (!found.has(dependency)) {
        found.add(dependency);
        walk(dependency);
      }
    }
  };
  walk(name);
  return found;
}

/** The secret's file inside the container: /run/secrets/<name> unless a target says otherwise. */
export function secretMounts(service: ComposeService): { source: string; target: string }[] {
  return (service.secrets ?? []).map((secret) => {
    const { source, target } = typeof secret === 'string' ? { source: secret, target: undefined } : secret;
    return { source, target: target === undefined ? `/run/secrets/${source}` : target.startsWith('/') ? target : `/run/secrets/${target}` };
  });
}
