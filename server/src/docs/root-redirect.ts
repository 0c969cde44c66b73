// `GET /` sends a visitor (a browser, an operator's curl) to the API reference rather than to a bare 404
// (DECISIONS.md). A 302, not a 301: browsers keep a permanent redirect, and a deployment may put something
// else at its root later.
import type { ServerRoute } from '@hapi/hapi';
import { DOCS_PATH } from './routes.js';

export function rootRedirectRoute(): ServerRoute {
  return { method: 'GET', path: '/', options: { auth: false, handler: (_request, h) => h.redirect(DOCS_PATH).code(302) } };
}
