// What this server keeps on hapi's request, declared in one place: the request id (app.ts, for the
// logs and the X-Request-Id header), the observer of its statements while it is traced or timed
// (tracing/observe.ts), and what it has been admitted to (admission/request-admission.ts). The key's
// credentials are hapi's own `request.auth.credentials.app`.
import type { ApiKeyCredentials } from './admission/credentials.js';
import type { RequestAdmission } from './admission/request-admission.js';
import type { StatementObserver } from './tracing/statements.js';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    requestId?: string;
    /** Set by tracing/observe.ts when the request's statements are traced or timed. */
    statements?: StatementObserver;
    /** Filled by the concurrency gate and the key's admission, in that order; read through admitted(). */
    admission?: RequestAdmission;
  }

  interface AppCredentials extends ApiKeyCredentials {}
}
