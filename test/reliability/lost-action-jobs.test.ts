import assert from 'node:assert/strict';
import { sweepActions } from '../../jobs/bridge/action-jobs.js';
import { checkAction, writeAction } from '../../jobs/bridge/actions-service.js';
import { claimPortalRun, queuePortalRun } from '../../jobs/bridge/portal/repository.js';
import { sweepPortalActions } from '../../jobs/bridge/portal/run.js';
import { newWebhookSecret } from '../../jobs/events/logic.js';
import { BRIDGE_ACTIONS_QUEUE } from '../../shared/queues.js';
import { DEFAULT_SCOPES, type Principal } from '../../shared/schemas/auth.js';
import { harness } from '../support/harness.js';
import { startReceiver, until } from '../support/receiver.js';

const input = { to: 'kim@example.com', text: 'hi', outreach: { lawfulBasis: 'contract' } };

/**
 * A bridge or portal action committed while its job never reached Redis (or
 * Redis lost it) rests under way until the clock's sweep puts the job back;
 * the workers' claims make it run once however often the sweep runs. The
 * commit here is the service's own (writeAction, queuePortalRun) without the
 * enqueue; age is set by hand, nothing waits on the wall clock.
 */
describe('nothing pending forever: bridge and portal actions whose job was lost', function () {
  this.timeout(30_000);
  const secret = newWebhookSecret();
  let provider: Awaited<ReturnType<typeof startReceiver>>;
  let owner: { token: string; accountId: string; tokenId: string };
  let principal: Principal;
  const call = (method: string, path: string, body?: unknown) =>
    harness.call(method, path, { token: owner.token, ...(body === undefined ? {} : { body }) });
  const action = (id: string) => harness.deps.db('bridge_actions').where({ id }).first();
  const ago = (minutes: number) => harness.deps.db.raw(`now() - make_interval(secs => ?)`, [minutes * 60]);

  before(async () => {
    provider = await startReceiver(() => [secret]);
    owner = await harness.account();
    principal = { ...owner, scopes: DEFAULT_SCOPES, plan: 'team', activated: true };
    for (const body of [
      { connectorId: 'hosted', kind: 'custom', caps: ['chat.post'], endpoint: provider.url, signingSecret: secret },
      { connectorId: 'relay', kind: 'custom', caps: ['chat.post'], endpoint: 'bridge://client/relay' },
    ]) {
      const made = await call('POST', '/v1/bridge/connectors', body);
      assert.equal(made.status, 201, made.text);
    }
  });
  after(() => provider.stop());

  it('a hosted action committed but never enqueued is sent once by the sweep, though it sweeps thrice', async () => {
    const checked = await checkAction(harness.deps, principal, {
      connectorId: 'hosted',
      capability: 'chat.post',
      input,
    });
    const row = await writeAction(harness.deps.db, owner.accountId, checked, 'test');
    assert.equal((await sweepActions(harness.deps)).requeued, 0, 'a fresh queued action is left to its request');
    await harness.deps
      .db('bridge_actions')
      .where({ id: row.id })
      .update({ updated_at: ago(5) });
    // Nothing else enqueues it: it can only succeed through a sweep.
    await Promise.all([sweepActions(harness.deps), sweepActions(harness.deps)]);
    const done = await until(
      () => action(row.id),
      (r) => r.status === 'succeeded',
    );
    await sweepActions(harness.deps);
    assert.equal((await action(row.id)).status, 'succeeded');
    assert.equal(provider.received.filter((r) => r.id === row.id).length, 1, 'the provider got it once');
    assert.equal(done.attempts, 1);
    assert.deepEqual(
      done.history.map((m: { to: string }) => m.to),
      ['queued', 'running', 'succeeded'],
    );
  });

  it('a client-hosted action whose timeout job was lost times out through the sweep, once', async () => {
    const made = await call('POST', '/v1/bridge/actions', { connectorId: 'relay', capability: 'chat.post', input });
    assert.equal(made.status, 201, made.text);
    const id = made.body.action.actionId;
    await until(
      () => action(id),
      (r) => r.status === 'awaitingClient',
    );
    await (await harness.deps.queues.queue(BRIDGE_ACTIONS_QUEUE).getJob(`${id}.timeout.1`))!.remove();
    await harness.deps
      .db('bridge_actions')
      .where({ id })
      .update({ client_deadline: ago(5) });
    await Promise.all([sweepActions(harness.deps), sweepActions(harness.deps)]);
    const done = await until(
      () => action(id),
      (r) => r.status === 'timedOut',
    );
    await sweepActions(harness.deps);
    assert.deepEqual(
      (await action(id)).history.map((m: { to: string }) => m.to),
      ['queued', 'awaitingClient', 'timedOut'],
    );
    assert.equal(done.attempts, 1);
  });

  async function portalAction(): Promise<string> {
    // A session whose password is not in the vault: the worker's preflight blocks it, no browser needed.
    const session = await call('POST', '/v1/bridge/portal/sessions', {
      targetOrigin: 'https://portal.example.com',
      credentials: { passwordRef: 'cred:lost-job-unset' },
    });
    assert.equal(session.status, 201, session.text);
    const made = await call('POST', '/v1/bridge/portal/actions', {
      portalSessionId: session.body.session.portalSessionId,
      steps: [{ op: 'navigate', url: '/login' }],
    });
    assert.equal(made.status, 201, made.text);
    return made.body.action.portalActionId;
  }
  const portal = (id: string) => harness.deps.db('portal_actions').where({ id }).first();

  it('a portal run asked for but never enqueued is run once by the sweep, though it sweeps three times', async () => {
    const id = await portalAction();
    assert.equal((await queuePortalRun(harness.deps.db, id))!.attempts, 1);
    await harness.deps
      .db('portal_actions')
      .where({ id })
      .update({ updated_at: ago(5) });
    await Promise.all([sweepPortalActions(harness.deps), sweepPortalActions(harness.deps)]);
    const done = await until(
      () => portal(id),
      (r) => r.status === 'blocked',
    );
    await sweepPortalActions(harness.deps);
    // Two sweeps at once may both add the attempt's job (one id: BullMQ keeps one), and a sweep that read the action
    // before it settled may add it again after; the worker's claim takes attempt 1 once either way.
    assert.deepEqual(await portal(id), done, 'a later sweep changes nothing');
    assert.deepEqual([done.status, done.blocked.reason, done.attempts], ['blocked', 'preflight.credentialsMissing', 1]);
  });

  it('a portal run whose worker died midway and whose job was lost ends failed, not run again', async () => {
    const id = await portalAction();
    await queuePortalRun(harness.deps.db, id);
    assert.equal((await claimPortalRun(harness.deps.db, id, 1))!.status, 'running', 'a worker took it, then died');
    const overdue = harness.config.PORTAL_ACTION_TIMEOUT_MS / 60_000 + 5;
    await harness.deps
      .db('portal_actions')
      .where({ id })
      .update({ updated_at: ago(overdue) });
    await sweepPortalActions(harness.deps);
    const done = await until(
      () => portal(id),
      (r) => r.status !== 'running',
    );
    assert.equal(done.status, 'failed');
    assert.match(done.error, /stopped midway; it was not run again/);
    assert.equal(done.blocked, null, 'the preflight did not run again either');
  });
});
