// Options are checked once, where they enter (createClient, syncLoads), against a schema kept beside the
// code that reads them. A wrong value fails at once with a TypeError that names the option, instead of
// misbehaving later: a `retry: { maxAttempts: undefined }` spread over the defaults once retried forever.
// `undefined` always means "use the default", so it is never an error and never overrides a default.

/** Says what a value must be, or undefined when it is fine. */
export type Check = (value: unknown) => string | undefined;

export type Schema = Record<string, Check>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const must = {
  string: (value: unknown) => (typeof value === 'string' ? undefined : 'must be a string'),
  nonEmptyString: (value: unknown) => (typeof value === 'string' && value !== '' ? undefined : 'must be a non-empty string'),
  httpUrl: (value: unknown) => {
    if (typeof value !== 'string') return 'must be an http(s) URL string';
    try {
      const { protocol } = new URL(value);
      return protocol === 'http:' || protocol === 'https:' ? undefined : 'must be an http(s) URL';
    } catch {
      return 'must be an http(s) URL';
    }
  },
  function: (value: unknown) => (typeof value === 'function' ? undefined : 'must be a function'),
  boolean: (value: unknown) => (typeof value === 'boolean' ? undefined : 'must be a boolean'),
  /** A whole number of at least `min` (Infinity is not one: "retry forever" is not an option). */
  integer: (min: number) => (value: unknown) => (Number.isSafeInteger(value) && (value as number) >= min ? undefined : `must be a whole number >= ${min}`),
  /** A finite number of milliseconds, at least `min`. */
  milliseconds: (min: number) => (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= min ? undefined : `must be a finite number of milliseconds >= ${min}`,
  oneOf: (...allowed: readonly unknown[]) => (value: unknown) =>
    allowed.includes(value) ? undefined : `must be one of ${allowed.map((item) => JSON.stringify(item)).join(', ')}`,
  abortSignal: (value: unknown) => (value instanceof AbortSignal ? undefined : 'must be an AbortSignal'),
  array: (value: unknown) => (Array.isArray(value) ? undefined : 'must be an array'),
  /** An object with these methods (and maybe more). */
  methods: (...names: string[]) => (value: unknown) =>
    isObject(value) && names.every((name) => typeof value[name] === 'function') ? undefined : `must be an object with ${names.map((name) => `${name}()`).join(' and ')}`,
  /** An object; its own keys are checked by checkOptions' `nested` schema. */
  object: (value: unknown) => (isObject(value) ? undefined : 'must be an object'),
} as const;

/**
 * Checks `options` against `schema`: `required` names must be present, every other key must be known,
 * and every value that is not undefined must pass its check. Nested objects are checked by `nested`.
 */
export function checkOptions(where: string, options: unknown, schema: Schema, required: readonly string[] = [], nested: Record<string, Schema> = {}): void {
  if (!isObject(options)) throw new TypeError(`${where}: options must be an object`);
  walk(where, '', options, schema, required, nested);
}

function walk(where: string, prefix: string, options: Record<string, unknown>, schema: Schema, required: readonly string[], nested: Record<string, Schema>): void {
  for (const name of required) {
    if (options[name] === undefined) throw new TypeError(`${where}: option ${prefix}${name} is required`);
  }
  for (const [name, value] of Object.entries(options)) {
    const check = schema[name];
    if (!check) throw new TypeError(`${where}: unknown option ${prefix}${name}`);
    if (value === undefined) continue;
    const problem = check(value);
    if (problem) throw new TypeError(`${where}: option ${prefix}${name} ${problem} (got ${describe(value)})`);
    const inner = nested[name];
    if (inner) walk(where, `${prefix}${name}.`, value as Record<string, unknown>, inner, [], {});
  }
}

/** The defaults, with every option the caller gave (undefined ones are left to the default). */
export function withDefaults<T extends object>(defaults: T, given: Partial<T> | undefined): T {
  const merged = { ...defaults };
  for (const [name, value] of Object.entries(given ?? {})) if (value !== undefined) (merged as Record<string, unknown>)[name] = value;
  return merged;
}

/** A value in an error message: short, and never a secret (the checks above never fail on the key's text). */
function describe(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}
