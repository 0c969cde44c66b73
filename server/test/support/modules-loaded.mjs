// Run by test/tracing/off-by-default.test.ts in a process of its own: makes a server (the built one, with
// the environment's settings), answers one request, and prints, as JSON, every module URL resolved from
// before the server was made, which a resolve hook reports.
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
const resolved = [];
port1.on('message', (url) => resolved.push(url));
port1.unref();
const HOOKS = `let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) { const found = await next(specifier, context); port.postMessage(found.url); return found; }`;
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { port: port2 }, transferList: [port2] });

const { createServer } = await import('../../dist/app.js');
const { loadConfig } = await import('../../dist/config/load.js');
const { createPool } = await import('../../dist/db/pool.js');
const { createLogger } = await import('../../dist/logging.js');
const config = loadConfig(process.env);
const pool = createPool(config.databaseUrl, { max: 2 });
const server = await createServer(config, { pool, logger: createLogger('silent') });
const response = await server.inject({ method: 'GET', url: '/api/v1/loads' });
await server.stop();
await pool.end();
// Let the hook thread's last messages arrive.
await new Promise((resolve) => setTimeout(resolve, 200));
process.stdout.write(JSON.stringify({ status: response.statusCode, resolved }));
