import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small customer portal on loopback for the portal browser: a login form
 * that checks the credentials it is given, a home page behind it that
 * greets the user by name and links in and out of scope, an invoices page,
 * and an admin page the tests keep out of scope. It counts every request.
 */

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

export async function startPortal(
  credentials: { username: string; password: string },
  outsideUrl = 'http://example.invalid/',
) {
  const hits: string[] = [];
  const signedIn = (req: http.IncomingMessage) => /(?:^|;\s*)sid=ok(?:;|$)/.test(req.headers.cookie ?? '');
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://portal');
    hits.push(`${req.method} ${url.pathname}`);
    const send = (status: number, html: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      res.end(html);
    };
    if (url.pathname === '/login' && req.method === 'POST') {
      let raw = '';
      req.on('data', (c) => {
        raw += c;
      });
      req.on('end', () => {
        const form = new URLSearchParams(raw);
        const ok = form.get('username') === credentials.username && form.get('password') === credentials.password;
        res.writeHead(
          303,
          ok ? { location: '/home', 'set-cookie': 'sid=ok; Path=/; HttpOnly' } : { location: '/login?failed=1' },
        );
        res.end();
      });
      return;
    }
    if (url.pathname === '/login') {
      return send(
        200,
        page(
          'Sign in',
          `${url.searchParams.has('failed') ? '<p id="failed">Wrong username or password</p>' : ''}
        <form method="post" action="/login"><input id="username" name="username">` +
            `<input id="password" name="password" type="password"><button type="submit">Sign in</button></form>`,
        ),
      );
    }
    if (!signedIn(req)) return send(302, '', { location: '/login' });
    if (url.pathname === '/home') {
      return send(
        200,
        page(
          'Home',
          `<h1 data-portal="welcome">Welcome back, ${credentials.username}</h1><a id="invoices" ` +
            `href="/invoices">Invoices</a> <a id="admin" href="/admin">Admin</a> <a id="outside" ` +
            `href="${outsideUrl}">Partner offers</a>`,
        ),
      );
    }
    if (url.pathname === '/invoices') {
      return send(
        200,
        page(
          'Invoices',
          `<table data-portal="invoices"><tr><th>Number</th><th>Date</th><th>Amount</th></tr>` +
            `<tr><td>INV-2026-011</td><td>2026-11-01</td><td>42.50 EUR</td></tr>` +
            `<tr><td>INV-2026-010</td><td>2026-10-01</td><td>39.90 EUR</td></tr></table>
        <p data-portal="latest-invoice">INV-2026-011 (42.50 EUR)</p>`,
        ),
      );
    }
    if (url.pathname === '/admin') return send(200, page('Admin', '<h1>Admin console</h1>'));
    return send(404, page('Not found', '<h1>Not found</h1>'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    hits,
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
