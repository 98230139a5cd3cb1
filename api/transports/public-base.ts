import type { Config } from '../../shared/config.js';

/**
 * The base of the URLs a transport hands out (the agent card's, MCP's
 * request URL): PUBLIC_BASE_URL when set, else the scheme and host the
 * client used, so a client on 127.0.0.1:PORT gets 127.0.0.1:PORT URLs. A
 * Host header that is not a plain host[:port] falls back to localhost
 * rather than end up in a URL.
 */
export function publicBase(config: Pick<Config, 'PUBLIC_BASE_URL' | 'PORT'>, origin: string): string {
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  try {
    const url = new URL(origin);
    if (url.origin === origin && /^https?:$/.test(url.protocol)) return origin;
  } catch {
    // fall through
  }
  return `http://localhost:${config.PORT}`;
}
