// `npm run topology -w @loadfeed/server`: brings the topology of topology.ts up on this machine, prints
// the URL and a key, and on Ctrl-C (or SIGTERM) stops it all cleanly.
import { MissingProgram } from './processes.js';
import { startTopology } from './topology.js';

const say = (line: string) => process.stderr.write(`${line}\n`);

// The handlers are in place before anything starts: a Ctrl-C during the start-up (a minute on a busy
// machine) is kept, and stops everything once it is up, rather than ending this process and leaving the
// clusters, PgBouncer and HAProxy running.
let received: string | undefined;
let wake: (() => void) | undefined;
for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(name, () => {
    received ??= name;
    wake?.();
  });
}

let topology;
try {
  topology = await startTopology({ loads: Number(process.env.TOPOLOGY_LOADS ?? 300), progress: (step) => say(`topology: starting ${step}`) });
} catch (error) {
  if (!(error instanceof MissingProgram)) throw error;
  say(`topology: ${error.message}`);
  process.exit(1);
}
say(
  [
    '',
    `loadfeed topology: listening on ${topology.url}`,
    `  HAProxy ${topology.url} → ${topology.instances.length} instances (${topology.instances.map((instance) => instance.baseUrl).join(', ')})`,
    `  → PgBouncer 127.0.0.1:${topology.bouncer.port} (transaction mode) → primary 127.0.0.1:${topology.primary.port}, streaming standby 127.0.0.1:${topology.standby.port}`,
    `  metrics: ${topology.instances.map((instance) => instance.metricsUrl).join(', ')}`,
    `  primary: ${topology.primaryUrl}`,
    '',
    `A key for customer "${topology.customer}" (10 requests a minute):`,
    '',
    `  ${topology.key}`,
    '',
    'Try it:',
    '',
    `  curl -H "Authorization: Bearer ${topology.key}" "${topology.url}/api/v1/loads?pageSize=5"`,
    '',
    'Stop with Ctrl-C.',
  ].join('\n'),
);

if (received === undefined) await new Promise<void>((resolve) => (wake = resolve));
say(`topology: ${received} received, stopping HAProxy, the instances, PgBouncer, the standby and the primary`);
await topology.stop();
say('topology: stopped');
