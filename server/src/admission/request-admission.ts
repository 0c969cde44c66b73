// What a request has been admitted to, as one object on the request (`request.app.admission`): its turn
// at the database, taken before authentication (concurrency-gate.ts), and what its key's admission
// decided in the same round trip that looked the key up (admit-request.ts): the credentials, the rate
// decision, the settled horizon and the feed version. Each step fills its part; a handler takes the
// whole through admitted(), which fails as a 500 when a route lacks a step, rather than reading a page
// without a horizon.
import Boom from '@hapi/boom';
import type { Request } from '@hapi/hapi';
import type { Admission } from './admit-request.js';
import type { AtDatabase, Turn } from './turn.js';

export interface RequestAdmission {
  /** The request's turn at the database, while it holds one. */
  turn?: Turn;
  /** What the key's admission decided: absent before authentication and for an unknown key (a 401). */
  key?: Admission;
}

/** A request admitted by every step: its key's admission, and where its database work runs. */
export interface Admitted extends Admission {
  /** Runs the request's database work inside its turn, with a signal that aborts when the client leaves. */
  atDatabase: AtDatabase;
}

/** The request's admission, made empty on first use. */
export function admissionOf(request: Request): RequestAdmission {
  return (request.app.admission ??= {});
}

/** What the handler of a route that takes a turn and admits a key reads from the request. */
export function admitted(request: Request): Admitted {
  const { turn, key } = request.app.admission ?? {};
  if (!turn || !key) throw Boom.badImplementation('the route takes no turn at the database or admits no key');
  return { ...key, atDatabase: turn.atDatabase };
}
