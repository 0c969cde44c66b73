// How an error names the far end: `host:port`, never the path or query (a URL is nothing secret here,
// but the host is what a reader can act on).

/** `host:port` of a URL, with the scheme's default port spelled out. */
export function hostPort(url: string): string {
  try {
    const parsed = new URL(url);
    const port = parsed.port || (parsed.protocol === 'https:' ? '443' : parsed.protocol === 'http:' ? '80' : '');
    return port ? `${parsed.hostname}:${port}` : parsed.hostname;
  } catch {
    return url;
  }
}
