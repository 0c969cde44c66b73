// The kinds of setting the server's configuration is made of (config/settings.ts declares each setting
// with one of them): each kind knows how its variable's text is checked (a joi schema whose message names
// the variable), what values it accepts in words (the README's table and `start --help`), and what the
// configuration holds. A kind is data plus a joi schema, so that a setting is written once.
import { resolve as resolvePath } from 'node:path';
import Joi from 'joi';

export interface Setting<T> {
  /** The environment variable. */
  env: string;
  /** What it sets, in plain text (backticks for names): the README's table and `start --help`. */
  meaning: string;
  /** What it is when unset, as a reader sees it. */
  defaultText: string;
  /** The values it accepts, in words. */
  accepts: string;
  /** Checks the variable's value (absent when unset or empty) and gives it its type and default. */
  schema: Joi.Schema;
  /** A comma-separated list: split, each item trimmed, before the check. */
  list: boolean;
  /** Another setting whose value this one takes when unset. */
  defaultFrom?: string | undefined;
  /** A list with one item per item of this other (list) setting, in order. */
  onePerItemOf?: string | undefined;
  /** A section of server/README.md that says more (its heading and anchor). */
  see?: { heading: string; anchor: string } | undefined;
  /** The configuration's value from the checked one (and the working directory, for a path). */
  finish: (value: unknown, cwd: string) => T;
}

interface Common {
  env: string;
  meaning: string;
  see?: { heading: string; anchor: string };
}

const asIs = <T>(value: unknown): T => value as T;
const code = (text: string | number): string => `\`${text}\``;

/** A whole number from `min` to `max` (or at least `min`), with a default or another setting's value. */
export function wholeNumber(options: Common & { min: number; max?: number; default: number } & { defaultFrom?: undefined }): Setting<number>;
export function wholeNumber(options: Common & { min: number; max?: number; defaultFrom: string } & { default?: undefined }): Setting<number>;
export function wholeNumber(options: Common & { min: number; max?: number; default?: number; defaultFrom?: string }): Setting<number> {
  const { env, min, max } = options;
  const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
  let schema = Joi.number().integer().min(min);
  if (max !== undefined) schema = schema.max(max);
  if (options.default !== undefined) schema = schema.default(options.default);
  return {
    env,
    meaning: options.meaning,
    see: options.see,
    defaultText: options.defaultFrom !== undefined ? code(options.defaultFrom) : code(options.default!),
    accepts: max === undefined ? `a whole number, at least ${min}` : `${min}-${max}`,
    schema: schema.messages({ '*': `${env} must be a whole number ${range} (got {{#value}})` }),
    list: false,
    defaultFrom: options.defaultFrom,
    finish: asIs,
  };
}

/** A whole number from `min` to `max` that may be left unset (then the feature it turns on is off). */
export function optionalWholeNumber(options: Common & { min: number; max: number }): Setting<number | undefined> {
  const { env, min, max } = options;
  return {
    env,
    meaning: options.meaning,
    see: options.see,
    defaultText: 'unset',
    accepts: `${min}-${max}`,
    schema: Joi.number().integer().min(min).max(max).messages({ '*': `${env} must be a whole number from ${min} to ${max} (got {{#value}})` }),
    list: false,
    finish: asIs,
  };
}

/** A host name or address to listen on. */
export function address(options: Common & { default: string }): Setting<string> {
  return {
    env: options.env,
    meaning: options.meaning,
    see: options.see,
    defaultText: code(options.default),
    accepts: 'a host name or address',
    schema: Joi.string().trim().min(1).default(options.default).messages({ '*': `${options.env} must be a host name or address` }),
    list: false,
    finish: asIs,
  };
}

const POSTGRES_SCHEMES = ['postgres', 'postgresql'];

/** A PostgreSQL connection string, unset or another setting's value when not given. */
export function postgresUrl(options: Common & { defaultFrom?: string }): Setting<string | undefined> {
  return {
    env: options.env,
    meaning: options.meaning,
    see: options.see,
    defaultText: options.defaultFrom !== undefined ? code(options.defaultFrom) : 'unset',
    accepts: 'a `postgres://` or `postgresql://` URL',
    schema: Joi.string().uri({ scheme: POSTGRES_SCHEMES }).messages({ '*': `${options.env} must be a postgres:// or postgresql:// connection string` }),
    list: false,
    defaultFrom: options.defaultFrom,
    finish: asIs,
  };
}

/** PostgreSQL connection strings separated by commas; none when unset. */
export function postgresUrls(options: Common): Setting<string[]> {
  const message = `${options.env} must be postgres:// or postgresql:// connection strings separated by commas`;
  return {
    env: options.env,
    meaning: options.meaning,
    see: options.see,
    defaultText: 'unset',
    accepts: '`postgres://` or `postgresql://` URLs, separated by commas',
    schema: Joi.array().items(Joi.string().uri({ scheme: POSTGRES_SCHEMES }).messages({ '*': message })).default([]).messages({ '*': message }),
    list: true,
    finish: asIs,
  };
}

/** Names separated by commas, each matching `pattern` and given once, one per item of another list setting. */
export function names(options: Common & { pattern: RegExp; patternText: string; defaultText: string; onePerItemOf: string }): Setting<string[] | undefined> {
  return {
    env: options.env,
    meaning: options.meaning,
    see: options.see,
    defaultText: options.defaultText,
    accepts: `${options.patternText}, separated by commas, each once`,
    schema: Joi.array()
      .items(Joi.string().pattern(options.pattern))
      .unique()
      .messages({ '*': `${options.env} must be names of ${options.patternText}, separated by commas, one per standby, each once` }),
    list: true,
    onePerItemOf: options.onePerItemOf,
    finish: asIs,
  };
}

/** Web origins (`scheme://host[:port]`, as a browser sends them in `Origin`) separated by commas, each once; none when unset. */
export function origins(options: Common): Setting<string[]> {
  const message = `${options.env} must be origins such as https://app.example.com (a scheme, a host and a port if not the default; no path), separated by commas, each once`;
  const origin = Joi.string().custom((value: string, helpers) => (originOf(value) === value ? value : helpers.error('any.invalid')));
  return {
    env: options.env,
    meaning: options.meaning,
    see: options.see,
    defaultText: 'unset',
    accepts: 'origins such as `https://app.example.com`, separated by commas',
    schema: Joi.array().items(origin).unique().default([]).messages({ '*': message }),
    list: true,
    finish: asIs,
  };
}

/** The origin `text` names, as a browser writes it, or undefined when it is not an http(s) URL. */
function originOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** One of a few words. */
export function oneOf<const V extends readonly string[]>(options: Common & { values: V; default: V[number] }): Setting<V[number]> {
  return {
    env: options.env,
    meaning: options.meaning,
    see: options.see,
    defaultText: code(options.default),
    accepts: options.values.map(code).join(', '),
    schema: Joi.string()
      .valid(...options.values)
      .default(options.default)
      .messages({ '*': `${options.env} must be one of ${options.values.join(', ')} (got {{#value}})` }),
    list: false,
    finish: asIs,
  };
}

/** A folder, relative to the working directory unless absolute; the configuration holds it resolved. */
export function folder(options: Common & { default: string }): Setting<string> {
  return {
    env: options.env,
    meaning: options.meaning,
    see: options.see,
    defaultText: code(options.default),
    accepts: 'a path',
    schema: Joi.string().min(1).default(options.default).messages({ '*': `${options.env} must be a path` }),
    list: false,
    finish: (value, cwd) => resolvePath(cwd, value as string),
  };
}

/** One of a few words, or unset (its meaning when unset is `defaultText`). */
export function optionalOneOf<const V extends readonly string[]>(options: Common & { values: V; defaultText: string }): Setting<V[number] | undefined> {
  return {
    env: options.env,
    meaning: options.meaning,
    see: options.see,
    defaultText: options.defaultText,
    accepts: options.values.map(code).join(', '),
    schema: Joi.string()
      .valid(...options.values)
      .messages({ '*': `${options.env} must be one of ${options.values.join(', ')} (got {{#value}})` }),
    list: false,
    finish: asIs,
  };
}

/** An http:// or https:// URL, or unset. */
export function httpUrl(options: Common): Setting<string | undefined> {
  return {
    env: options.env,
    meaning: options.meaning,
    see: options.see,
    defaultText: 'unset',
    accepts: 'an `http://` or `https://` URL',
    schema: Joi.string().uri({ scheme: ['http', 'https'] }).messages({ '*': `${options.env} must be an http:// or https:// URL` }),
    list: false,
    finish: asIs,
  };
}

/** A short text matching `pattern`. */
export function text(options: Common & { default: string; pattern: RegExp; patternText: string }): Setting<string> {
  return {
    env: options.env,
    meaning: options.meaning,
    see: options.see,
    defaultText: code(options.default),
    accepts: options.patternText,
    schema: Joi.string().trim().pattern(options.pattern).default(options.default).messages({ '*': `${options.env} must be ${options.patternText}` }),
    list: false,
    finish: asIs,
  };
}

/** A short text matching `pattern`, or unset (its meaning when unset is `defaultText`). */
export function optionalText(options: Common & { defaultText: string; pattern: RegExp; patternText: string }): Setting<string | undefined> {
  return {
    env: options.env,
    meaning: options.meaning,
    see: options.see,
    defaultText: options.defaultText,
    accepts: options.patternText,
    schema: Joi.string().trim().pattern(options.pattern).messages({ '*': `${options.env} must be ${options.patternText}` }),
    list: false,
    finish: asIs,
  };
}

/** One `key=value` pair of OTEL_RESOURCE_ATTRIBUTES: a key without `=`, a value percent-encoded where needed. */
const KEY_VALUE = /^[^=\s]+=[^=]*$/;

/** `key` to its decoded value, or undefined when the percent-encoding is broken. */
function decodedPair(item: string): [string, string] | undefined {
  const at = item.indexOf('=');
  try {
    return [item.slice(0, at).trim(), decodeURIComponent(item.slice(at + 1).trim())];
  } catch {
    return undefined;
  }
}

/**
 * `key=value` pairs separated by commas, as the OpenTelemetry standard writes OTEL_RESOURCE_ATTRIBUTES (a
 * comma, `=` or `%` in a value percent-encoded); none when unset. The configuration holds them decoded.
 */
export function keyValues(options: Common): Setting<Record<string, string>> {
  const message = `${options.env} must be key=value pairs separated by commas (a comma, "=" or "%" in a value percent-encoded)`;
  const pair = Joi.string().custom((value: string, helpers) => (KEY_VALUE.test(value) && decodedPair(value) !== undefined ? value : helpers.error('any.invalid')));
  return {
    env: options.env,
    meaning: options.meaning,
    see: options.see,
    defaultText: 'unset',
    accepts: '`key=value` pairs, separated by commas',
    schema: Joi.array().items(pair).default([]).messages({ '*': message }),
    list: true,
    finish: (value) => Object.fromEntries((value as string[]).map((item) => decodedPair(item)!)),
  };
}
