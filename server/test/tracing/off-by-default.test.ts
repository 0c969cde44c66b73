// Traces are off by default and free when off: a server made without OTEL_TRACES_EXPORTER or an OTLP
// endpoint, or with OTEL_SDK_DISABLED=true, loads no OpenTelemetry module at all; with them, it does (the control).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { useTestDatabase } from '../../src/testing/vitest.js';
import { cliEnv, collect } from '../cli/run-cli.js';

const SCRIPT = fileURLToPath(new URL('../support/modules-loaded.mjs', import.meta.url));

async function modulesLoaded(env: Record<string, string>): Promise<{ status: number; resolved: string[] }> {
  const child = spawn(process.execPath, [SCRIPT], { env: cliEnv({ LOG_LEVEL: 'silent', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  const [stdout, stderr] = await Promise.all([collect(child.stdout!), collect(child.stderr!)]);
  if (!stdout) throw new Error(stderr);
  return JSON.parse(stdout) as { status: number; resolved: string[] };
}

describe('tracing, off by default', () => {
  const database = useTestDatabase();
  beforeAll(async () => {
    await migrate(database.url);
  });

  it('loads no OpenTelemetry module when no OTEL_* variable turns traces on, and loads them when one does', async () => {
    const off = await modulesLoaded({ DATABASE_URL: database.url, OTEL_SERVICE_NAME: 'named-but-off', SERVER_TIMING: 'on' });
    expect(off.status).toBe(401);
    expect(off.resolved.some((url) => url.includes('/dist/app.js'))).toBe(true);
    expect(off.resolved.filter((url) => url.includes('@opentelemetry'))).toEqual([]);
    const none = await modulesLoaded({ DATABASE_URL: database.url, OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(none.resolved.filter((url) => url.includes('@opentelemetry'))).toEqual([]);
    const disabled = await modulesLoaded({ DATABASE_URL: database.url, OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'console', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces' });
    expect(disabled.status).toBe(401);
    expect(disabled.resolved.filter((url) => url.includes('@opentelemetry'))).toEqual([]);

    const on = await modulesLoaded({ DATABASE_URL: database.url, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(on.status).toBe(401);
    expect(on.resolved.filter((url) => url.includes('@opentelemetry')).length).toBeGreaterThan(3);
    const tracesEndpointOnly = await modulesLoaded({ DATABASE_URL: database.url, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces' });
    expect(tracesEndpointOnly.resolved.filter((url) => url.includes('@opentelemetry')).length).toBeGreaterThan(3);
  }, 60_000);
});
