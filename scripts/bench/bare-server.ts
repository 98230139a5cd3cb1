/**
 * The raw primitives the API's load figures are compared with, each run as
 * its own process like the API (`node --import tsx scripts/bench/bare-server.ts`):
 * BARE_MODE=hello is a bare Koa hello world; BARE_MODE=submit is a bare
 * Koa + ajv + pg INSERT + BullMQ queue.add server, what an async submission
 * needs at the least (validate, make it durable, hand it to a queue, answer
 * 202). Stops cleanly on SIGTERM.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Queue, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import Koa from 'koa';
import pg from 'pg';
import { koaListener } from '../../shared/http/koa-listener.js';

const mode = process.env.BARE_MODE ?? 'hello';
const port = Number(process.env.BARE_PORT);
const app = new Koa();
const closers: Array<() => Promise<unknown>> = [];

if (mode === 'submit') {
  // The same shape the orchestrator accepts, closed to other properties, as awp's route schema is.
  const validate = new Ajv2020({ allErrors: false }).compile({
    type: 'object',
    additionalProperties: false,
    required: ['request'],
    properties: {
      request: { type: 'string', minLength: 1, maxLength: 4000 },
      domainRoute: { type: 'array', maxItems: 8, items: { type: 'string', enum: ['hunt', 'resolve'] } },
    },
  });
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_MAX ?? 10) });
  await pool.query(
    `CREATE TABLE IF NOT EXISTS bare_submissions (id text PRIMARY KEY, request text NOT NULL, input jsonb ` +
      `NOT NULL, status text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
  );
  const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const queue = new Queue('bare-submit', {
    connection: redis as unknown as ConnectionOptions,
    prefix: process.env.BARE_PREFIX ?? '{bare-bench}',
  });
  closers.push(
    () => queue.close(),
    () => pool.end(),
    async () => redis.disconnect(),
  );
  app.use(async (ctx) => {
    if (ctx.method !== 'POST') {
      ctx.body = { ok: true };
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of ctx.req) chunks.push(c as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      ctx.status = 400;
      ctx.body = { ok: false, error: 'invalid JSON' };
      return;
    }
    if (!validate(body)) {
      ctx.status = 400;
      ctx.body = { ok: false, error: validate.errors?.[0]?.message };
      return;
    }
    const id = randomUUID();
    await pool.query(`INSERT INTO bare_submissions (id, request, input, status) VALUES ($1, $2, $3, 'queued')`, [
      id,
      (body as { request: string }).request,
      body,
    ]);
    await queue.add('run', { id }, { jobId: id });
    ctx.status = 202;
    ctx.body = { ok: true, runId: id, status: 'queued' };
  });
} else {
  app.use(async (ctx) => {
    ctx.body = { ok: true, name: 'bare' };
  });
}

const server = http.createServer(koaListener(app));
await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void Promise.all(closers.map((c) => c())).then(() => {
    process.exitCode = 0;
  });
});
