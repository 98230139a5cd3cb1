import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import pg from 'pg';
import { issueToken } from '../../jobs/accounts/issue-token.js';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';
import { koaListener } from '../../shared/http/koa-listener.js';
import { stats, type BenchEnv } from './env.js';

type Env = BenchEnv;

async function time(n: number, fn: () => Promise<unknown>) {
  for (let i = 0; i < 20; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return stats(samples);
}

/** The API's fixed cost per request (errors, request id, auth, rate limit, validation) against bare Koa and bare pg. */
export async function benchHttp(env: Env, n = Number(process.env.BENCH_HTTP_N ?? 500)) {
  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: 4 });
  const bare = new Koa();
  bare.use(async (ctx) => {
    if (ctx.path === '/db')
      ctx.body = { ok: true, rows: (await pool.query('select id, status from runs order by id desc limit 1')).rows };
    else ctx.body = { ok: true, name: 'bare' };
  });
  const server = http.createServer(koaListener(bare));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const bareUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await env.deps
    .db('accounts')
    .insert({
      id: 'acct_bench_http',
      email: 'benchhttp@awp.local',
      name: 'b',
      password_hash: '!',
      plan: 'team',
      status: 'active',
    })
    .onConflict('id')
    .ignore();
  const { token } = await issueToken(env.deps.db, 'acct_bench_http', { name: 'bench', scopes: DEFAULT_SCOPES });
  const get =
    (url: string, headers: Record<string, string> = {}) =>
    async () => {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
    };
  const result = {
    bareKoa: await time(n, get(`${bareUrl}/`)),
    awpPublic: await time(n, get(`${env.url}/v1/manifest`)),
    bareKoaPg: await time(n, get(`${bareUrl}/db`)),
    awpAuthedList: await time(n, get(`${env.url}/v1/runs?limit=1`, { authorization: `Bearer ${token}` })),
    barePg: await time(n, () => pool.query('select 1')),
  };
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await pool.end();
  return {
    ...result,
    ratios: {
      publicVsBareKoaP50: Math.round((result.awpPublic.p50 / result.bareKoa.p50) * 100) / 100,
      authedListVsBareKoaPgP50: Math.round((result.awpAuthedList.p50 / result.bareKoaPg.p50) * 100) / 100,
    },
  };
}
