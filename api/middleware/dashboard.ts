import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Context, Next } from 'koa';

export const DASHBOARD_PATH = '/dashboard';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};
/** Built files only; no inline script or style, no third-party origin, never framed. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * `dashboard/dist` at the repository root, whether this runs from source (api/middleware) or compiled
 * (dist/api/middleware).
 */
export function dashboardDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dashboard', 'dist');
    dir = path.dirname(dir);
  }
  return path.resolve('dashboard', 'dist');
}

type Asset = { body: Buffer; gzip: Buffer; type: string };

/**
 * Serves the built dashboard under /dashboard/: index.html for the page
 * itself (hash routing, so no other path needs a fallback), hashed assets
 * cached for a year. Files are read and gzipped once, then kept in memory
 * (the whole build is a few tens of KB). Before a build exists it answers
 * 503 saying how to build it.
 */
export function dashboard(dir = dashboardDir()) {
  const cache = new Map<string, Promise<Asset | null>>();
  const load = (rel: string) => {
    let hit = cache.get(rel);
    if (!hit) {
      hit = readFile(path.join(dir, rel)).then(
        (body) => ({ body, gzip: gzipSync(body), type: TYPES[path.extname(rel)] ?? 'application/octet-stream' }),
        () => null,
      );
      cache.set(rel, hit);
      void hit.then((a) => {
        if (!a) cache.delete(rel);
      });
    }
    return hit;
  };
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== DASHBOARD_PATH && !ctx.path.startsWith(`${DASHBOARD_PATH}/`)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === DASHBOARD_PATH) return ctx.redirect(`${DASHBOARD_PATH}/`);
    const rel = ctx.path === `${DASHBOARD_PATH}/` ? 'index.html' : ctx.path.slice(DASHBOARD_PATH.length + 1);
    // Only the build's own names: no `..`, no hidden files, no encoded separators.
    if (!/^(assets\/)?[\w.-]+$/.test(rel) || rel.startsWith('.')) return next();
    const asset = await load(rel);
    if (!asset) {
      if (rel !== 'index.html') return next();
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The dashboard is not built: run `npm run build:dashboard` (npm start builds it when missing).';
      return;
    }
    ctx.set('Content-Type', asset.type);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (rel === 'index.html') {
      ctx.set('Content-Security-Policy', CSP);
      ctx.set('Referrer-Policy', 'same-origin');
    }
    ctx.vary('Accept-Encoding');
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = asset.gzip;
    } else {
      ctx.body = asset.body;
    }
  };
}
