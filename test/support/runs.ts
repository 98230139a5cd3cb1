import assert from 'node:assert/strict';
import { RESTING_STATUSES } from '../../jobs/orchestrator/run-state.js';
import { insertListings } from '../../jobs/hunt/catalog-repository.js';
import { harness } from './harness.js';

/** Three espresso machines, two within a $250 budget (in `db`, another app's database, when given). */
export async function seedCatalog(accountId: string, db = harness.deps.db) {
  await insertListings(db, accountId, [
    {
      title: 'Espresso machine Classic',
      price: 189,
      fees: 12,
      currency: 'USD',
      vendor: 'Brewhouse',
      url: 'https://shop.example/classic',
      tags: ['coffee'],
    },
    {
      title: 'Espresso machine Compact',
      price: 149,
      fees: 0,
      currency: 'USD',
      vendor: 'CafeCo',
      url: 'https://shop.example/compact',
      tags: ['coffee'],
    },
    { title: 'Espresso machine Pro', price: 899, fees: 40, currency: 'USD', vendor: 'Brewhouse', tags: ['coffee'] },
  ]);
}

/** Polls GET /v1/runs/{id} until the run rests. */
export async function pollUntilRest(token: string, runId: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await harness.call('GET', `/v1/runs/${runId}`, { token });
    assert.equal(res.status, 200, res.text);
    if (RESTING_STATUSES.includes(res.body.run.status) && res.body.run.result) return res.body.run;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not rest: ${res.text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function ndjson(text: string): any[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}
