import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  sweepDeliveries,
  sweepIdempotencyKeys,
  sweepMails,
  sweepRunEventPartitions,
  sweepRunEvents,
  sweepRunSteps,
} from '../../jobs/clock/retention.js';
import { sweeps } from '../../jobs/clock/sweeps.js';
import { newId } from '../../shared/ids.js';
import { sendMail } from '../../shared/mail.js';
import { createLogger } from '../../shared/log.js';
import { harness } from '../support/harness.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const ago = (interval: string) => harness.deps.db.raw(`now() - interval '${interval}'`);

/** Retention settings of these tests; batches of 10 so a sweep over 25 items is seen to take three. */
function deps(overrides: Record<string, string> = {}) {
  return {
    db: harness.deps.db,
    log: createLogger('silent'),
    config: harness.configWith({
      RUN_EVENTS_RETENTION_DAYS: '30',
      RUN_STEPS_RETENTION_DAYS: '20',
      DELIVERY_RETENTION_DAYS: '30',
      MAIL_BODY_RETENTION_HOURS: '24',
      MAIL_RETENTION_DAYS: '30',
      IDEMPOTENCY_TTL_HOURS: '24',
      RETENTION_BATCH_SIZE: '10',
      ...overrides,
    }),
  };
}

/**
 * A run with three events (the last `final`) and one step, finished (or, with `finishedAgo` null, waiting) for that
 * long. Its events are kept ones (moved out of their week before it was dropped) unless `kept` is false.
 */
async function run(accountId: string, status: string, finishedAgo: string | null, kept = true): Promise<string> {
  const id = newId('run');
  const db = harness.deps.db;
  await db('runs').insert({
    id,
    account_id: accountId,
    status,
    request: 'x',
    input: '{}',
    route: ['hunt'],
    routing: '{}',
    event_seq: 3,
    created_at: ago('90 days'),
    finished_at: finishedAgo ? ago(finishedAgo) : null,
  });
  await db('run_events').insert(
    ['trace', 'handoff', 'final'].map((type, i) => ({
      run_id: id,
      seq: i + 1,
      account_id: accountId,
      type,
      data: '{}',
      kept,
      created_at: ago('90 days'),
    })),
  );
  await db('run_steps').insert({
    id: `${id}.0.0.hunt`,
    run_id: id,
    account_id: accountId,
    segment: 0,
    idx: 0,
    domain: 'hunt',
    status: 'completed',
  });
  return id;
}

const eventTypes = async (runId: string) =>
  (await harness.deps.db('run_events').where({ run_id: runId }).orderBy('seq')).map((e) => e.type);
const stepCount = async (runId: string) =>
  Number((await harness.deps.db('run_steps').where({ run_id: runId }).count({ n: '*' }))[0]!.n);

describe('retention sweeps', function () {
  this.timeout(30_000);
  let accountId: string;
  before(async () => {
    ({ accountId } = await harness.account());
  });

  it('are scheduled on the clock', () => {
    assert.equal(sweeps()['retention.runEvents']!.run, sweepRunEvents);
    assert.equal(sweeps()['retention.runEventWeeks']!.run, sweepRunEventPartitions);
    assert.equal(sweeps()['retention.runSteps']!.run, sweepRunSteps);
    assert.equal(sweeps()['retention.deliveries']!.run, sweepDeliveries);
    assert.equal(sweeps()['retention.mails']!.run, sweepMails);
    assert.equal(sweeps()['idempotency.purge']!.run, sweepIdempotencyKeys);
  });

  it(
    'kept run events: a run finished past retention keeps only its final event; recent, waiting and running ' +
      'runs keep all; events still in their week are left to it',
    async () => {
      const old = await Promise.all(
        Array.from({ length: 25 }, (_, i) => run(accountId, i % 2 ? 'failed' : 'ready', '40 days')),
      );
      const inItsWeek = await run(accountId, 'ready', '40 days', false);
      const recent = await run(accountId, 'ready', '5 days');
      const waiting = await run(accountId, 'NEEDS_INPUT', null);
      const running = await run(accountId, 'running', null);
      const result = await sweepRunEvents(deps());
      assert.equal(result.batches, 3, 'three batches of 10 runs (26 of them)');
      assert.ok(result.deleted >= 50, `deleted ${result.deleted}`);
      for (const id of old) assert.deepEqual(await eventTypes(id), ['final']);
      for (const id of [recent, waiting, running, inItsWeek])
        assert.deepEqual(await eventTypes(id), ['trace', 'handoff', 'final']);
      // Trimmed runs are marked: the next sweep has nothing to do and does not rescan them.
      const again = await sweepRunEvents(deps());
      assert.deepEqual(again, { deleted: 0, batches: 1 });
      assert.deepEqual(await eventTypes(recent), ['trace', 'handoff', 'final']);
    },
  );

  it('run steps: deleted for runs finished past retention only; the run row stays', async () => {
    const old = await run(accountId, 'canceled', '21 days');
    const recent = await run(accountId, 'ready', '19 days');
    const waiting = await run(accountId, 'NEEDS_INPUT', null);
    await sweepRunSteps(deps());
    assert.equal(await stepCount(old), 0);
    assert.equal(await stepCount(recent), 1);
    assert.equal(await stepCount(waiting), 1);
    assert.ok(await harness.deps.db('runs').where({ id: old }).first());
  });

  it(
    'deliveries: a chain goes whole once its last attempt ' + 'finished past retention; a chain still retrying stays',
    async () => {
      const db = harness.deps.db;
      const subscriptionId = newId('sub');
      await db('subscriptions').insert({
        id: subscriptionId,
        account_id: accountId,
        endpoint: 'http://127.0.0.1:9/hook',
        events: ['*'],
        secret: 'whsec_x',
      });
      // Each chain on an event of its own: the first attempt is unique per (event, subscription).
      const chain = async (attempts: Array<[status: string, finishedAgo: string | null]>) => {
        const eventId = newId('evt');
        await db('events').insert({ id: eventId, account_id: accountId, type: 'run.completed', payload: '{}' });
        const ids: string[] = [];
        for (const [i, [status, finishedAgo]] of attempts.entries()) {
          const id = newId('dlv');
          await db('deliveries').insert({
            id,
            root_id: ids[0] ?? id,
            parent_id: ids[i - 1] ?? null,
            attempt: i + 1,
            account_id: accountId,
            event_id: eventId,
            subscription_id: subscriptionId,
            status,
            finished_at: finishedAgo ? ago(finishedAgo) : null,
          });
          ids.push(id);
        }
        return ids;
      };
      const chains = {
        completedLongAgo: await chain([['completed', '40 days']]),
        failedTwiceLongAgo: await chain([
          ['failed', '45 days'],
          ['failed', '40 days'],
        ]),
        stillRetrying: await chain([
          ['failed', '40 days'],
          ['queued', null],
        ]),
        completedRecently: await chain([
          ['failed', '40 days'],
          ['completed', '5 days'],
        ]),
      };
      await sweepDeliveries(deps());
      const left = async (ids: string[]) => Number((await db('deliveries').whereIn('id', ids).count({ n: '*' }))[0]!.n);
      assert.equal(await left(chains.completedLongAgo), 0);
      assert.equal(await left(chains.failedTwiceLongAgo), 0);
      assert.equal(await left(chains.stillRetrying), 2);
      assert.equal(await left(chains.completedRecently), 2);
    },
  );

  it(
    'mails: a sent mail keeps a hash instead of its body at once; an unsent one keeps it until ' +
      'MAIL_BODY_RETENTION_HOURS; rows go after MAIL_RETENTION_DAYS',
    async () => {
      const db = harness.deps.db;
      const mail = async (createdAgo: string) => {
        const id = newId('mail');
        await db('outbound_mails').insert({
          id,
          account_id: accountId,
          to_address: 'a@example.com',
          subject: 's',
          text_body: `token act_${id}`,
          status: 'stored',
          created_at: ago(createdAgo),
        });
        return id;
      };
      const fresh = await mail('1 hour');
      const stale = await mail('2 days');
      const expired = await mail('40 days');
      const result = await sweepMails(deps());
      assert.ok(result.bodiesHashed >= 1 && result.deleted >= 1, JSON.stringify(result));
      assert.equal((await db('outbound_mails').where({ id: fresh }).first()).text_body, `token act_${fresh}`);
      const hashed = await db('outbound_mails').where({ id: stale }).first();
      assert.equal(hashed.text_body, null);
      assert.equal(hashed.body_sha256, sha256(`token act_${stale}`));
      assert.equal(await db('outbound_mails').where({ id: expired }).first(), undefined);

      const { startSmtpSink } = await import('../support/smtp-sink.js');
      const sink = await startSmtpSink();
      try {
        const text = `Your token:\nact_${newId('x')}\n`;
        assert.equal(
          await sendMail(deps({ SMTP_URL: `${sink.url}?ignoreTLS=true` }), {
            accountId,
            to: 'sent@example.com',
            subject: 's',
            text,
          }),
          'smtp',
        );
        const sent = await db('outbound_mails')
          .where({ to_address: 'sent@example.com' })
          .orderBy('created_at', 'desc')
          .first();
        assert.equal(sent.status, 'sent');
        assert.equal(sent.text_body, null, 'a sent mail keeps no body');
        assert.equal(sent.body_sha256, sha256(text));
      } finally {
        await sink.stop();
      }
      const text = `Your token:\nact_${newId('y')}\n`;
      assert.equal(
        await sendMail(deps({ MAIL_BODY_RETENTION_HOURS: '0' }), {
          accountId,
          to: 'zero@example.com',
          subject: 's',
          text,
        }),
        'stored',
      );
      const stored = await db('outbound_mails').where({ to_address: 'zero@example.com' }).first();
      assert.equal(stored.text_body, null, 'MAIL_BODY_RETENTION_HOURS=0 keeps no body even unsent');
      assert.equal(stored.body_sha256, sha256(text));
    },
  );

  it('idempotency keys: deleted past IDEMPOTENCY_TTL_HOURS, kept within it', async () => {
    const db = harness.deps.db;
    const keys = Array.from({ length: 12 }, (_, i) => `old-${i}-${newId('k')}`);
    await db('idempotency_keys').insert(
      keys.map((key) => ({ account_id: accountId, key, request_hash: 'h', created_at: ago('25 hours') })),
    );
    await db('idempotency_keys').insert({
      account_id: accountId,
      key: 'recent',
      request_hash: 'h',
      created_at: ago('23 hours'),
    });
    const result = await sweepIdempotencyKeys(deps());
    assert.ok(result.deleted >= 12 && result.batches >= 2, JSON.stringify(result));
    assert.equal(Number((await db('idempotency_keys').whereIn('key', keys).count({ n: '*' }))[0]!.n), 0);
    assert.ok(await db('idempotency_keys').where({ account_id: accountId, key: 'recent' }).first());
  });
});
