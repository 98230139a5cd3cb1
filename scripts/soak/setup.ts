import { issueToken } from '../../jobs/accounts/issue-token.js';
import { insertListings } from '../../jobs/hunt/catalog-repository.js';
import type { Db } from '../../shared/db/knex.js';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';
import type { Client } from './client.js';
import type { Receiver } from './receiver.js';
import { BENCH_HASHES } from './bodies.js';

export const SOAK_ACCOUNT = 'acct_soak';

/** What the load needs besides its token: the mandate pay runs settle under, and the soak's own automation. */
export interface SoakFixtures {
  mandateId: string | null;
  subscriptions: Array<{ id: string; path: 'flaky' | 'dead'; events: string[] }>;
  scheduleId: string | null;
  signalType: string;
  domains: string[];
}

/**
 * The soak's account (team plan) with a token of the default scopes, made
 * as the bench makes its own (scripts/bench/awp-client.ts), and a catalog
 * for hunt's runs to search.
 */
export async function soakToken(db: Db): Promise<string> {
  await db('accounts')
    .insert({
      id: SOAK_ACCOUNT,
      email: 'soak@awp.local',
      name: 'soak',
      password_hash: '!',
      plan: 'team',
      status: 'active',
    })
    .onConflict('id')
    .ignore();
  await insertListings(
    db,
    SOAK_ACCOUNT,
    Array.from({ length: 20 }, (_, i) => ({
      title: `Espresso machine model ${i}`,
      price: 120 + i * 10,
      fees: i % 3,
      currency: 'USD',
      vendor: `Vendor ${i % 4}`,
      url: `https://soak.example/${i}`,
      tags: ['coffee'],
    })),
  );
  return (await issueToken(db, SOAK_ACCOUNT, { name: 'soak', scopes: DEFAULT_SCOPES })).token;
}

const must = (what: string, a: { status: number | null; text: string }, ok: number[]) => {
  if (a.status === null || !ok.includes(a.status)) throw new Error(`${what}: ${a.status} ${a.text.slice(0, 300)}`);
};

/**
 * Through the API: the domains (GET /v1/manifest), a task and a mandate for
 * pay, two webhook subscriptions to the local receiver (every event to
 * `/flaky`; failed and canceled runs and schedule firings to `/dead`), a schedule firing a
 * benchmark run every 10 s (overlap allowed), and a signal rule that starts
 * one per matching signal.
 */
export async function setUpFixtures(api: Client, receiver: Receiver): Promise<SoakFixtures> {
  const manifest = await api.call('setup', 'GET', '/v1/manifest', { token: null });
  must('GET /v1/manifest', manifest, [200]);
  const task = await api.call('setup', 'POST', '/v1/tasks', { body: { domain: 'pay', inData: {} } });
  must('POST /v1/tasks', task, [201]);
  const mandate = await api.call('setup', 'POST', '/v1/pay/mandates', {
    body: { taskId: task.body.task.taskId, constraints: { maxSpend: { amount: 1_000_000, currency: 'USD' } } },
  });
  must('POST /v1/pay/mandates', mandate, [201]);
  const subscriptions: SoakFixtures['subscriptions'] = [];
  for (const [path, events] of [
    ['flaky', ['*']],
    ['dead', ['run.failed', 'run.canceled', 'schedule.fired']],
  ] as const) {
    const sub = await api.call('setup', 'POST', '/v1/event-subscriptions', {
      body: { endpoint: receiver.url(path), events, description: `soak ${path}` },
    });
    must(`subscription ${path}`, sub, [201]);
    receiver.setSecret(path, sub.body.secret);
    subscriptions.push({ id: sub.body.subscription.subscriptionId, path, events: [...events] });
  }
  const benchTarget = {
    request: { request: 'bench', domainRoute: ['benchmark'], metadata: { hashes: BENCH_HASHES } },
  };
  const schedule = await api.call('setup', 'POST', '/v1/schedules', {
    body: { cron: '*/10 * * * * *', overlap: 'allow', target: benchTarget },
  });
  must('POST /v1/schedules', schedule, [201]);
  const signalType = 'soak.ping';
  const rule = await api.call('setup', 'POST', '/v1/signals/rules', {
    body: { name: 'soak', signalType, target: benchTarget },
  });
  must('POST /v1/signals/rules', rule, [201]);
  return {
    mandateId: mandate.body.mandateId ?? mandate.body.mandate?.mandateId ?? null,
    subscriptions,
    scheduleId: schedule.body.schedule?.scheduleId ?? schedule.body.scheduleId ?? null,
    signalType,
    domains: manifest.body.domains as string[],
  };
}
