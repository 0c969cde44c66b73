// The image's HEALTHCHECK: the instance is healthy while its /readyz answers 200 (the primary answers
// and the feed's triggers are in place). Node alone, since the image has no shell and no curl.
const port = process.env.PORT || '3000';
try {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2500) });
  process.exitCode = response.status === 200 ? 0 : 1;
} catch {
  process.exitCode = 1;
}
