import assert from 'node:assert/strict';
import { ALL_ROUTES } from '../../api/routes/index.js';

/** Issue 8 §6: routes whose answer carries a secret say so on their RouteSpec, so idempotency never stores it. */
describe('secret-bearing routes are marked returnsSecret', () => {
  const marked = ALL_ROUTES.filter((r) => r.returnsSecret)
    .map((r) => `${r.method} ${r.path}`)
    .sort();

  it('every route whose response schema has a string token or secret field is marked', () => {
    const unmarked = ALL_ROUTES.filter((r) => !r.returnsSecret).filter((r) =>
      Object.values(r.response ?? {}).some((schema: any) =>
        Object.entries(schema.properties ?? {}).some(
          ([name, prop]: [string, any]) => /^(token|secret)$/i.test(name) && prop.type === 'string',
        ),
      ),
    );
    assert.deepEqual(
      unmarked.map((r) => `${r.method} ${r.path}`),
      [],
    );
  });

  it('the routes that mint tokens and webhook secrets are marked', () => {
    for (const route of [
      'POST /v1/profiles',
      'POST /v1/tokens',
      'POST /v1/tokens/{tokenId}/rotate',
      'POST /v1/event-subscriptions',
      'POST /v1/events/subscriptions',
      'POST /v1/event-subscriptions/{subId}/update',
    ]) {
      assert.ok(marked.includes(route), `${route} is marked returnsSecret`);
    }
  });
});
