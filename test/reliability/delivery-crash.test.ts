import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { dispatchDue } from '../../jobs/events/deliver.js';
import { sweepExpiredLeases } from '../../shared/db/deliveries.js';
import { recordEvent } from '../../shared/db/outbox.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { harness } from '../support/harness.js';
import { startReceiver, until } from '../support/receiver.js';
import { spawnEntry, waitForOutput } from '../support/spawn.js';

describe('a delivery worker killed mid-batch', function () {
  this.timeout(60_000);

  it('loses nothing: every event is completed exactly once after the sweep', async () => {
    const { token, accountId } = await harness.account();
    const secrets: string[] = [];
    let hang = true;
    const rx = await startReceiver(
      () => secrets,
      () => ({ status: 200 }),
    );
    // While `hang` holds, the receiver takes requests and never answers, so the child dies holding claims.
    const hung: Array<() => void> = [];
    const originalUrl = rx.url;
    const hangServer = await import('node:http').then((http) => {
      const server = http.createServer((req, res) => {
        if (hang) {
          hung.push(() => res.destroy());
          return;
        }
        req.pipe(
          http.request(originalUrl, { method: 'POST', headers: req.headers }, (up) => {
            res.writeHead(up.statusCode!, up.headers);
            up.pipe(res);
          }),
        );
      });
      return new Promise<import('node:http').Server>((r) => server.listen(0, '127.0.0.1', () => r(server)));
    });
    const prefix = `{awp-dcrash-${randomBytes(3).toString('hex')}}`;
    const child = spawnEntry('workers/delivery.ts', {
      DATABASE_URL: harness.config.DATABASE_URL!,
      REDIS_URL: harness.config.REDIS_URL!,
      QUEUE_PREFIX: prefix,
      DELIVERY_LEASE_SECONDS: '2',
      AWP_ALLOW_PRIVATE_EGRESS: '1',
      LOG_LEVEL: 'info',
    });
    const childDeps = createDeps(harness.configWith({ QUEUE_PREFIX: prefix }), createLogger('silent'));
    try {
      await waitForOutput(child, (o) => o.includes('"msg":"started"'));
      const port = (hangServer.address() as import('node:net').AddressInfo).port;
      const sub = await harness.call('POST', '/v1/event-subscriptions', {
        token,
        body: { endpoint: `http://127.0.0.1:${port}/hook`, events: ['batch.item'] },
      });
      secrets.push(sub.body.secret);
      const eventIds = await harness.deps.db.transaction(async (trx) => {
        const ids: string[] = [];
        for (let i = 0; i < 30; i++)
          ids.push((await recordEvent(trx, { accountId, type: 'batch.item', payload: { i } })).eventId);
        return ids;
      });
      await childDeps.queues.queue('webhooks').add('dispatch', {});
      // One subscription's attempts go out one at a time: the first hangs while the rest of the batch stays claimed.
      await until(
        () => hung.length,
        (n) => n >= 1,
      );
      const held = await harness.deps
        .db('deliveries')
        .where({ account_id: accountId, status: 'claimed', claimed_by: `dispatcher:${child.pid}` })
        .count({ n: '*' })
        .first();
      assert.ok(Number(held?.n) >= 5, 'the worker dies holding leases');
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      hang = false;
      hung.forEach((drop) => drop());

      await new Promise((r) => setTimeout(r, 2100)); // the dead worker's leases expire
      // the clock's sweep may have been first: either returns them
      await sweepExpiredLeases(harness.deps.db, accountId);
      await until(
        async () => {
          await dispatchDue(null, harness.deps);
          return harness.deps
            .db('deliveries')
            .where({ account_id: accountId, status: 'completed' })
            .count({ n: '*' })
            .first();
        },
        (r) => Number(r?.n) >= 30,
        20_000,
      );
      const completed = await harness.deps
        .db('deliveries')
        .where({ account_id: accountId, status: 'completed' })
        .select('event_id');
      assert.deepEqual(
        completed.map((c) => c.event_id).sort(),
        [...eventIds].sort(),
        'each event completed exactly once',
      );
      assert.deepEqual(
        new Set(rx.received.map((r) => r.body.eventId)),
        new Set(eventIds),
        'the receiver saw every event',
      );
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      hangServer.closeAllConnections();
      hangServer.close();
      await rx.stop();
      await childDeps.close();
    }
  });
});
