// Redirects: followed only within the base URL's origin. A redirect to another origin means the deployment
// moved or something else answers at the base URL (a captive portal, a proxy's login page): it is refused
// with a RedirectError that names where it pointed, before anything is sent there. The redirect is taken
// by hand (`redirect: 'manual'`) so that the other origin is never asked; a browser hides a manual
// redirect's target, so there the request is sent again following redirects, and where it ended is checked.
import { RedirectError } from './errors.js';
import { hostPort } from './host-port.js';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Same-origin hops allowed for one attempt, as browsers and undici allow about twenty: a loop ends here. */
export const MAX_REDIRECTS = 10;

type Fetch = (request: Request) => Promise<Response>;

export function sameOriginRedirects(fetch: Fetch): Fetch {
  return async function followSameOrigin(request) {
    const origin = new URL(request.url).origin;
    let current = request.redirect === 'manual' ? request : new Request(request, { redirect: 'manual' });
    for (let hops = 0; ; hops += 1) {
      const response = await fetch(current);
      if (response.type === 'opaqueredirect') {
        const followed = await fetch(new Request(current, { redirect: 'follow' }));
        refuseOtherOrigin(request.url, origin, followed, followed.url);
        return followed;
      }
      // A fetch given by the caller may follow redirects whatever it is asked: where it ended is checked too.
      if (response.redirected) refuseOtherOrigin(request.url, origin, response, response.url);
      const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
      if (location === null) return response;
      await response.body?.cancel().catch(() => {});
      let target: URL;
      try {
        target = new URL(location, current.url);
      } catch {
        throw new RedirectError(`${hostPort(request.url)} answered ${response.status} with a Location that is not a URL`, undefined, context(response));
      }
      refuseOtherOrigin(request.url, origin, response, target.href);
      if (hops >= MAX_REDIRECTS) {
        throw new RedirectError(`${hostPort(request.url)} redirected more than ${MAX_REDIRECTS} times (last to ${target.pathname})`, target.href, context(response));
      }
      current = new Request(target, { method: current.method, headers: current.headers, signal: current.signal, redirect: 'manual' });
    }
  };
}

const context = (response: Response) => ({ status: response.status, headers: response.headers });

function refuseOtherOrigin(requested: string, origin: string, response: Response, location: string): void {
  if (location === '' || new URL(location).origin === origin) return;
  const elsewhere = new URL(location).origin;
  throw new RedirectError(
    `${hostPort(requested)} redirected the request to another origin, ${elsewhere}: the base URL has moved, or something else answers there (the key was not sent there); if the deployment moved, set the base URL to it`,
    location,
    context(response),
  );
}
