import assert from 'node:assert/strict';
import http from 'node:http';
import { waitForRest } from '../../jobs/orchestrator/follow.js';
import { registerStepHandler } from '../../jobs/steps.js';
import { appendEvents } from '../../shared/db/runs.js';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';

/** Reads an NDJSON run stream to its end; resolves with the events. */
function readAll(url: string, token: string): Promise<any[]> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (buf += c));
        res.on('end', () =>
          resolve(
            buf
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l)),
          ),
        );
      })
      .on('error', reject);
  });
}

/** A resolve step that waits until released, so a test can act while the run is in flight. */
function gatedResolve() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const restore = registerStepHandler('resolve', async () => {
    await gate;
    return { output: {}, evidence: [], conversation: ['done'] };
  });
  return { release, restore };
}

describe('followers miss nothing that Postgres has', function () {
  this.timeout(30_000);
  let token: string;
  let accountId: string;
  before(async () => {
    ({ token, accountId } = await harness.account());
    await seedCatalog(accountId);
  });

  it(
    'events written without a live publish reach a live ' + 'follower, in order, and the stream ends at final',
    async () => {
      const { release, restore } = gatedResolve();
      try {
        const started = await harness.call('POST', '/v1/orchestrator/run', {
          token,
          headers: { prefer: 'respond-async' },
          body: { request: 'audit this', domainRoute: ['resolve'] },
        });
        const runId = started.body.runId;
        const stream = readAll(`${harness.url}/v1/runs/${runId}/events`, token);
        await new Promise((r) => setTimeout(r, 300));
        // As if the publish after commit had been lost: in Postgres, never on the live channel.
        await appendEvents(harness.deps.db, runId, accountId, [
          { type: 'domainStream', data: { domain: 'resolve', message: 'unpublished 1', data: {} } },
          { type: 'domainStream', data: { domain: 'resolve', message: 'unpublished 2', data: {} } },
        ]);
        await new Promise((r) => setTimeout(r, 300));
        release();
        const events = await stream;
        assert.deepEqual(
          events.map((e) => e.id),
          events.map((_, i) => i + 1),
          'every id, in order, none twice',
        );
        assert.deepEqual(
          events.filter((e) => e.type === 'domainStream').map((e) => e.message),
          ['unpublished 1', 'unpublished 2'],
        );
        assert.equal(events[events.length - 1].type, 'final');
      } finally {
        release();
        restore();
      }
    },
  );

  it('a wait for a run whose final was never published still answers, within about a second', async () => {
    const { release, restore } = gatedResolve();
    try {
      const started = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        headers: { prefer: 'respond-async' },
        body: { request: 'audit this', domainRoute: ['resolve'] },
      });
      const runId = started.body.runId;
      const waiting = waitForRest(harness.deps, runId, 8000, 0);
      await appendEvents(harness.deps.db, runId, accountId, [
        { type: 'final', data: { segment: 0, result: { ok: true, marker: 'from postgres' } } },
      ]);
      const result = await waiting;
      assert.deepEqual(result, { ok: true, marker: 'from postgres' });
      release();
    } finally {
      release();
      restore();
    }
  });

  it('a finished run whose events retention trimmed is followed to its final (ids skip what was deleted)', async () => {
    const started = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find the cheapest espresso machine', domainRoute: ['hunt'] },
    });
    assert.equal(started.status, 200, started.text);
    const runId = started.body.runId;
    // What the retention sweep leaves of an old run: its final, nothing before it.
    await harness.deps.db('run_events').where({ run_id: runId }).whereNot({ type: 'final' }).delete();
    const events = await readAll(`${harness.url}/v1/runs/${runId}/events`, token);
    assert.deepEqual(
      events.map((e) => e.type),
      ['final'],
    );
    assert.ok(events[0].id > 1, 'the final keeps its own id');
  });
});
