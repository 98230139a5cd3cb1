import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { ALL_ROUTES } from '../../api/routes/index.js';

describe('contract routes', () => {
  it('GET /healthz reports version, contractCount and dependency checks', async () => {
    const res = await harness.call('GET', '/healthz');
    assert.equal(res.status, 200);
    assert.equal(res.body.ok, true);
    assert.equal(res.body.version, '0.1.0');
    assert.equal(res.body.contractCount, ALL_ROUTES.length);
    assert.deepEqual(res.body.checks, { postgres: 'up', redis: 'up' });
    // Answered before the rest of the stack (app.ts probeFirst): no request id, no access-log line.
    assert.equal(res.headers.get('x-request-id'), null);
    assert.ok((await harness.call('GET', '/v1/manifest')).headers.get('x-request-id'), 'other routes do carry one');
  });

  it('GET /v1/manifest lists the thirteen domains and three transports', async () => {
    const res = await harness.call('GET', '/v1/manifest');
    assert.equal(res.status, 200);
    assert.equal(res.body.domains.length, 13);
    assert.deepEqual(res.body.transports, ['http', 'mcp', 'a2a']);
  });
});
