// What an operator's Prometheus scrapes: the figures of one instance, in prom-client's registry of its
// own (so that several servers in one process, as in tests, never mix their counts). The server records
// into it as requests go (app.ts, loads/route.ts) and the page reads as they are routed (db/read-router.ts);
// pool figures are read from the pools at each scrape. Served on a port of its own (metrics-server.ts).
import type { Request } from '@hapi/hapi';
import type pg from 'pg';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Latency buckets in seconds: a page is a few ms when idle, hundreds under overload. */
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** How long a query waited for a pooled connection, in seconds. */
const WAIT_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5];
/** How far the settled horizon is behind the database clock, in seconds (writers hold it back). */
const HORIZON_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60, 300, 1800];

export class Metrics {
  readonly registry = new Registry();
  readonly requests: Counter<'route' | 'method' | 'status'>;
  readonly requestSeconds: Histogram<'route'>;
  readonly rateLimited: Counter;
  readonly horizonLagSeconds: Histogram;
  readonly pageReads: Counter<'database'>;
  readonly standbySkips: Counter<'standby' | 'reason'>;
  readonly replayLagSeconds: Gauge<'standby'>;
  readonly replayLagBytes: Gauge<'standby'>;
  readonly databaseUp: Gauge<'database'>;
  readonly poolWaitSeconds: Histogram<'database'>;
  private readonly pools = new Map<string, pg.Pool>();
  private readonly requestSeries = new Map<string, RequestSeries>();

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'loadfeed_http_requests_total',
      help: 'Requests answered, by route (the path pattern), method and status',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'loadfeed_http_request_duration_seconds',
      help: 'Time from receiving a request to answering it, by route',
      labelNames: ['route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.rateLimited = new Counter({
      name: 'loadfeed_rate_limit_rejections_total',
      help: 'Requests refused with a 429 because their key had used its limit',
      registers,
    });
    this.horizonLagSeconds = new Histogram({
      name: 'loadfeed_settled_horizon_lag_seconds',
      help: "How far each page's settled horizon was behind the database clock (long writers hold it back)",
      buckets: HORIZON_BUCKETS,
      registers,
    });
    this.pageReads = new Counter({
      name: 'loadfeed_page_reads_total',
      help: 'Pages read, by the database that served them (primary, or a standby by host:port/database)',
      labelNames: ['database'],
      registers,
    });
    this.standbySkips = new Counter({
      name: 'loadfeed_standby_skips_total',
      help: 'Page reads a standby did not serve, by reason: down, behind (not current enough), not_standby (promoted)',
      labelNames: ['standby', 'reason'],
      registers,
    });
    this.replayLagSeconds = new Gauge({
      name: 'loadfeed_standby_replay_lag_seconds',
      help: "Age of the standby's last replayed commit when the primary has newer WAL, else 0 (last check)",
      labelNames: ['standby'],
      registers,
    });
    this.replayLagBytes = new Gauge({
      name: 'loadfeed_standby_replay_lag_bytes',
      help: "Bytes of the primary's WAL the standby had not replayed yet (last check)",
      labelNames: ['standby'],
      registers,
    });
    this.databaseUp = new Gauge({
      name: 'loadfeed_database_up',
      help: 'Whether the database answered its last check (1) or not (0); a standby also 0 when promoted',
      labelNames: ['database'],
      registers,
    });
    this.poolWaitSeconds = new Histogram({
      name: 'loadfeed_db_pool_acquire_seconds',
      help: 'Time a query waited for a connection of the pool, by database',
      labelNames: ['database'],
      buckets: WAIT_BUCKETS,
      registers,
    });
    const pools = this.pools;
    new Gauge({
      name: 'loadfeed_db_pool_connections',
      help: 'Connections of the pool, by database and state (busy or idle)',
      labelNames: ['database', 'state'],
      registers,
      collect() {
        for (const [database, pool] of pools) {
          this.set({ database, state: 'idle' }, pool.idleCount);
          this.set({ database, state: 'busy' }, pool.totalCount - pool.idleCount);
        }
      },
    });
    new Gauge({
      name: 'loadfeed_db_pool_waiting',
      help: 'Queries waiting for a connection of the pool right now, by database',
      labelNames: ['database'],
      registers,
      collect() {
        for (const [database, pool] of pools) this.set({ database }, pool.waitingCount);
      },
    });
  }

  /** Reports `pool`'s connections at each scrape and times every wait for one of them. */
  watchPool(database: string, pool: pg.Pool): void {
    if (this.pools.has(database)) return;
    this.pools.set(database, pool);
    // pg's Pool.query borrows through connect(callback); both forms are timed.
    const connect = pool.connect.bind(pool) as (callback?: (error: Error | undefined, client?: pg.PoolClient, done?: () => void) => void) => unknown;
    const histogram = this.poolWaitSeconds.labels({ database });
    (pool as { connect: unknown }).connect = (callback?: (error: Error | undefined, client?: pg.PoolClient, done?: () => void) => void) => {
      const stop = histogram.startTimer();
      if (callback) {
        return connect((error, client, done) => {
          stop();
          callback(error, client, done);
        });
      }
      return (connect() as Promise<pg.PoolClient>).finally(stop);
    };
  }

  /** Records an answered request (hapi's 'response' event). */
  recordResponse(request: Request): void {
    const response = request.response as { statusCode?: number; output?: { statusCode: number } } | null;
    const status = response?.statusCode ?? response?.output?.statusCode ?? 500;
    // Unmatched paths share hapi's not-found route, so that a scan of random paths adds no label values.
    const route = request.route.path === '/{p*}' || status === 404 ? 'unmatched' : request.route.path;
    const { requests, seconds } = this.childrenOf(route, request.method, status);
    requests.inc();
    seconds.observe(Math.max(0, (request.info.responded || Date.now()) - request.info.received) / 1000);
    if (status === 429) this.rateLimited.inc();
  }

  /**
   * The request series of a route, method and status, kept once made: prom-client hashes a label object on
   * every call that passes one (its keys sorted and joined), which was most of what recording cost per request.
   * The routes, methods and statuses a server answers are few, so the map stays small.
   */
  private childrenOf(route: string, method: string, status: number): RequestSeries {
    const key = `${route} ${method} ${status}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      series = {
        requests: this.requests.labels({ route, method: method.toUpperCase(), status: String(status) }),
        seconds: this.requestSeconds.labels({ route }),
      };
      this.requestSeries.set(key, series);
    }
    return series;
  }
}

interface RequestSeries {
  requests: { inc(): void };
  seconds: { observe(value: number): void };
}
