import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret } from '../../jobs/events/logic.js';
import { harness } from '../support/harness.js';

/**
 * The hunt `connector` source: a hunt.search connector is asked the query (signed) and its candidates are ranked with
 * the others.
 */
describe('hunt: the connector source', function () {
  this.timeout(20_000);
  const secret = newWebhookSecret();
  const seen: Array<{ query: string; verified: boolean; auth: string | undefined }> = [];
  let server: http.Server;
  let url: string;
  let answer: unknown;
  before(async () => {
    process.env.AWP_SECRET_TEST_HUNT_KEY = 'hunt-key-0123456789';
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        let verified = true;
        try {
          new Webhook(secret).verify(raw, req.headers as Record<string, string>);
        } catch {
          verified = false;
        }
        seen.push({
          query: JSON.parse(raw).data.query,
          verified,
          auth: req.headers['x-api-key'] as string | undefined,
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/search`;
  });
  after(async () => {
    delete process.env.AWP_SECRET_TEST_HUNT_KEY;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it(
    'asks each hunt.search connector and ranks its ' + 'candidates; an answer outside the contract is ' + 'reported',
    async () => {
      const a = await harness.account();
      assert.equal(
        (
          await harness.call('POST', '/v1/bridge/credentials', {
            token: a.token,
            body: { name: 'hunt-key', kind: 'apiKey', value: 'hunt-key-0123456789' },
          })
        ).status,
        201,
      );
      const made = await harness.call('POST', '/v1/bridge/connectors', {
        token: a.token,
        body: {
          connectorId: 'shop-api',
          kind: 'custom',
          caps: ['hunt.search'],
          endpoint: url,
          credential: { type: 'apiKey', tokenRef: 'cred:hunt-key' },
          signingSecret: secret,
        },
      });
      assert.equal(made.status, 201, made.text);
      answer = {
        candidates: [
          {
            id: 'd1',
            title: 'Cordless drill 18V',
            price: 89,
            currency: 'USD',
            fees: 5,
            vendor: 'Shop',
            availability: 'inStock',
          },
          { id: 'd2', title: 'Drill bits', price: 900, currency: 'USD' },
        ],
      };
      const res = await harness.call('POST', '/v1/hunt/search', {
        token: a.token,
        body: { query: 'cordless drill', sources: ['connector'], budget: { maxUsd: 200 } },
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.candidates.map((c: any) => [c.candidateId, c.source, c.net?.amount, c.eligible]),
        [
          ['connector:shop-api:d1', 'connector', '94.00', true],
          ['connector:shop-api:d2', 'connector', '900.00', false],
        ],
      );
      assert.equal(res.body.sourceTelemetry.connector.status, 'ok');
      assert.deepEqual(seen.at(-1), { query: 'cordless drill', verified: true, auth: 'hunt-key-0123456789' });

      answer = { items: [] };
      const bad = await harness.call('POST', '/v1/hunt/search', {
        token: a.token,
        body: { query: 'drill', sources: ['connector'] },
      });
      assert.equal(bad.status, 200);
      assert.equal(bad.body.sourceTelemetry.connector.connectors['shop-api'].status, 'failed');
      assert.match(bad.body.sourceTelemetry.connector.connectors['shop-api'].error, /hunt\.search contract/);

      const none = await harness.call('POST', '/v1/hunt/search', {
        token: (await harness.account()).token,
        body: { query: 'drill', sources: ['connector'] },
      });
      assert.equal(none.body.sourceTelemetry.connector.status, 'unavailable');
    },
  );
});
