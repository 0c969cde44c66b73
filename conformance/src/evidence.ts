// Every exchange of a run, recorded with the key masked: the cache that lets one response serve many checks,
// the ledger the budget paces from, and the evidence a failure and the HTML report show.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { API_KEY_PREFIX, type Violation } from '@loadfeed/spec';
import { ENV, type KeyLabel } from './options.js';

/** Which credential a request carried: one of the run's keys, none, or a shape a check made up. */
export type Credential = KeyLabel | 'none' | 'made-up';

export interface Exchange {
  id: number;
  credential: Credential;
  /** The Authorization header as sent, masked; null when none was sent. */
  authorization: string | null;
  method: string;
  /** Path and query, relative to the base URL. */
  target: string;
  /** Whether the response is checked as a listLoads response. */
  listLoads: boolean;
  sentAt: number;
  receivedAt: number;
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON body, or null when the body is not JSON. */
  body: unknown;
  bodyExcerpt: string;
  violations: Violation[];
  note?: string;
}

export interface RunLedger {
  /** Why the run could not start (unreachable deployment, refused key); the CLI exits 2 with it. */
  fatal?: string;
  plan?: unknown;
  exchanges: Exchange[];
}

const EXCERPT_LENGTH = 1200;

export function excerpt(text: string, length = EXCERPT_LENGTH): string {
  return text.length <= length ? text : `${text.slice(0, length)}… (${text.length} characters in all)`;
}

/**
 * Masks the credential of an Authorization value: the scheme, a short non-secret start and a 24-bit
 * fingerprint stay visible, so that two keys can be told apart in the evidence (and in the run's cache)
 * while nothing of use to an attacker is written down.
 */
export function maskAuthorization(value: string): string {
  const match = /^(\S+)(\s+)(.*)$/s.exec(value);
  const [scheme, gap, credential] = match ? [match[1]!, match[2]!, match[3]!] : ['', '', value];
  if (credential.length === 0) return value;
  const visible = credential.startsWith(API_KEY_PREFIX) ? API_KEY_PREFIX : credential.slice(0, Math.min(3, Math.floor(credential.length / 4)));
  const fingerprint = createHash('sha256').update(credential).digest('hex').slice(0, 6);
  return `${scheme}${gap}${visible}…(${credential.length} characters, masked, #${fingerprint})`;
}

/** The run's exchanges in a JSON file, so that a restarted worker keeps the cache and the pacing state. */
export class ExchangeLog {
  private constructor(
    readonly path: string,
    private ledger: RunLedger,
  ) {}

  static open(path: string): ExchangeLog {
    const ledger = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as RunLedger) : { exchanges: [] };
    return new ExchangeLog(path, ledger);
  }

  /** Starts a run's ledger afresh, dropping what an earlier run left. */
  static start(path: string): ExchangeLog {
    const log = new ExchangeLog(path, { exchanges: [] });
    log.save();
    return log;
  }

  get exchanges(): readonly Exchange[] {
    return this.ledger.exchanges;
  }

  get fatal(): string | undefined {
    return this.ledger.fatal;
  }

  get plan(): unknown {
    return this.ledger.plan;
  }

  record(exchange: Omit<Exchange, 'id'>): Exchange {
    const recorded = { id: this.ledger.exchanges.length + 1, ...exchange };
    this.ledger.exchanges.push(recorded);
    this.save();
    return recorded;
  }

  /** The latest answered exchange with the same credential, Authorization (masked), method and target. */
  cached(request: Pick<Exchange, 'credential' | 'authorization' | 'method' | 'target'>): Exchange | undefined {
    return this.ledger.exchanges.findLast(
      (exchange) =>
        exchange.credential === request.credential &&
        exchange.authorization === request.authorization &&
        exchange.method === request.method &&
        exchange.target === request.target &&
        exchange.status !== 429,
    );
  }

  setFatal(reason: string): void {
    this.ledger.fatal = reason;
    this.save();
  }

  setPlan(plan: unknown): void {
    this.ledger.plan = plan;
    this.save();
  }

  private save(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileSync(this.path, JSON.stringify(this.ledger));
  }
}

const SHOWN_HEADERS = /^(content-type|x-ratelimit-.*|retry-after|www-authenticate|allow|x-request-id)$/;

/** The environment variable that holds each of the run's keys: a replay names it, never the key. */
const KEY_VARIABLE: Record<KeyLabel, string> = { primary: ENV.apiKey, second: ENV.secondKey, revoked: ENV.revokedKey };

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** A curl command that sends the request again, the key read from its environment variable. */
export function replayCommand(exchange: Exchange, baseUrl: string): string {
  const method = exchange.method === 'GET' ? '' : ` -X ${exchange.method}`;
  const url = shellQuote(baseUrl + exchange.target);
  if (exchange.credential === 'none') return `curl -sS -i${method} ${url}`;
  if (exchange.credential === 'made-up') {
    // A made-up credential is derived from the key (tampered, cut, re-encoded), so it is never written down.
    return `curl -sS -i${method} -H "Authorization: <the made-up credential, masked above>" ${url}`;
  }
  const scheme = exchange.authorization?.split(/\s/)[0] ?? 'Bearer';
  return `curl -sS -i${method} -H "Authorization: ${scheme} $${KEY_VARIABLE[exchange.credential]}" ${url}`;
}

/** The exchange as a failure message shows it: request (key masked), response status, headers, body excerpt, and its replay. */
export function describeExchange(exchange: Exchange, bodyLength = 400, baseUrl?: string): string {
  const auth = exchange.authorization === null ? 'no Authorization header' : `Authorization: ${exchange.authorization}`;
  const headers = Object.entries(exchange.headers)
    .filter(([name]) => SHOWN_HEADERS.test(name))
    .map(([name, value]) => `${name}: ${value}`)
    .join('; ');
  return [
    `  request:  #${exchange.id} ${exchange.method} ${exchange.target} (${auth}; key: ${exchange.credential})`,
    `  response: ${exchange.status}${headers ? `; ${headers}` : ''}`,
    `  body:     ${exchange.bodyExcerpt.length > bodyLength ? `${exchange.bodyExcerpt.slice(0, bodyLength)}…` : exchange.bodyExcerpt}`,
    ...(baseUrl === undefined ? [] : [`  replay:   ${replayCommand(exchange, baseUrl)}`]),
  ].join('\n');
}
