import assert from 'node:assert/strict';
import { harness, type ApiResponse } from '../support/harness.js';

/** A 400 invalidPayload envelope whose details name `path`. */
function assertNamesField(res: ApiResponse, path: string) {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.ok, false);
  assert.equal(res.body.error, 'invalidPayload');
  const paths = (res.body.details ?? []).map((d: { path: string }) => d.path);
  assert.ok(paths.includes(path), `details name ${path}: ${JSON.stringify(res.body.details)}`);
  assert.ok(res.body.message.includes(path), res.body.message);
}

/** `{"k":{"k":…1…}}` nested `depth` objects deep, as raw JSON text (JSON.stringify would overflow first). */
function nested(depth: number, key = 'k'): string {
  return `{"${key}":`.repeat(depth) + '1' + '}'.repeat(depth);
}

describe('hostile input: every input gets a 4xx answer, never a 500', () => {
  let token: string;
  let runId: string;
  before(async () => {
    ({ token } = await harness.account());
    const run = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find a road bike under 900 dollars', domainRoute: ['hunt'] },
      headers: { prefer: 'respond-async' },
    });
    assert.equal(run.status, 202, run.text);
    runId = run.body.runId;
  });

  describe('NUL bytes and lone surrogates', () => {
    it('a NUL in a body string is 400 naming the field', async () => {
      const res = await harness.call('POST', '/v1/handshake', {
        token,
        raw: '{"domains":["hunt"],"clientId":"a\\u0000b"}',
      });
      assertNamesField(res, '/clientId');
    });

    it('a lone surrogate in a body string is 400 naming the field, high or low, nested in arrays too', async () => {
      assertNamesField(
        await harness.call('POST', '/v1/handshake', { token, raw: '{"domains":["hunt"],"clientId":"\\ud800"}' }),
        '/clientId',
      );
      assertNamesField(
        await harness.call('POST', '/v1/handshake', { token, raw: '{"domains":["hunt","x\\udc00"]}' }),
        '/domains/1',
      );
      // A well-formed pair (an emoji) is ordinary text.
      const ok = await harness.call('POST', '/v1/handshake', {
        token,
        raw: '{"domains":["hunt"],"clientId":"\\ud83d\\ude00"}',
      });
      assert.equal(ok.status, 200, ok.text);
    });

    it('a NUL in a key of free-form data (metadata, ignored fields) is 400 too', async () => {
      const res = await harness.call('POST', '/v1/tasks', { token, raw: '{"domain":"hunt","inData":{"a\\u0000":1}}' });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalidPayload');
      assert.match(res.body.details[0].path, /^\/inData\/a\\u0000$/);
    });

    it('a NUL in a path parameter is 400 naming the parameter', async () => {
      assertNamesField(await harness.call('GET', '/v1/runs/%00', { token }), 'params:/runId');
      assertNamesField(await harness.call('GET', '/v1/tasks/ab%00cd', { token }), 'params:/taskId');
      assertNamesField(await harness.call('POST', `/v1/runs/%00/cancel`, { token }), 'params:/runId');
    });

    it('a NUL in a query filter is 400 naming the filter', async () => {
      assertNamesField(await harness.call('GET', '/v1/runs?status=%00', { token }), 'query:/status');
      assertNamesField(await harness.call('GET', '/v1/runs?conversationId=%00', { token }), 'query:/conversationId');
      assertNamesField(await harness.call('GET', '/v1/runs?cursor=x%00', { token }), 'query:/cursor');
    });
  });

  describe('nesting depth', () => {
    it('JSON nested 5,000 levels deep is 400 naming where it goes too deep', async () => {
      const res = await harness.call('POST', '/v1/orchestrator/run', {
        token,
        raw: `{"request":"find shoes","metadata":${nested(5000)}}`,
      });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalidPayload');
      assert.equal(res.body.details[0].keyword, 'maxDepth');
      assert.match(res.body.details[0].path, /^\/metadata(\/k)+$/);
      assert.match(res.body.message, /deeper than 64 levels/);
    });

    it('arrays count too, at the root and inside objects', async () => {
      const res = await harness.call('POST', '/v1/handshake', {
        token,
        raw: '['.repeat(100_000) + ']'.repeat(100_000),
      });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.details[0].keyword, 'maxDepth');
      assert.match(res.body.details[0].path, /^(\/0)+$/);
      const inner = await harness.call('POST', '/v1/handshake', {
        token,
        raw: `{"domains":["hunt"],"x":[1,${'['.repeat(70)}${']'.repeat(70)}]}`,
      });
      assert.equal(inner.status, 400);
      assert.match(inner.body.details[0].path, /^\/x\/1(\/0)+$/);
    });

    it('brackets and quotes inside strings do not count; a body 60 levels deep is accepted', async () => {
      const tricky = `{"domains":["hunt"],"clientId":"[[[[{{{{\\"\\\\","deep":${nested(60)}}`;
      const res = await harness.call('POST', '/v1/handshake', { token, raw: tricky });
      assert.equal(res.status, 200, res.text);
    });
  });

  describe('ranges, prototype keys and URLs', () => {
    it('?after= beyond the event id range is 400, and so is such a Last-Event-ID', async () => {
      assertNamesField(
        await harness.call('GET', `/v1/runs/${runId}/events?after=99999999999`, { token }),
        'query:/after',
      );
      const header = await harness.call('GET', `/v1/runs/${runId}/events`, {
        token,
        headers: { 'last-event-id': '99999999999' },
      });
      assert.equal(header.status, 400, header.text);
      assert.equal(header.body.error, 'invalidPayload');
    });

    it('timestamps Postgres cannot store or answers cannot show (year 0000, past ±14:00, past 9999): 400', async () => {
      assertNamesField(
        await harness.call('GET', '/v1/runs?createdAfter=0000-01-01T00:00:00Z', { token }),
        'query:/createdAfter',
      );
      assertNamesField(
        await harness.call('GET', '/v1/runs?createdBefore=2026-01-01T00:00:00-23:59', { token }),
        'query:/createdBefore',
      );
      assertNamesField(
        await harness.call('GET', '/v1/events?since=0001-01-01T00:00:00%2B23:59', { token }),
        'query:/since',
      );
      // A leap second, or an offset, that carries the instant past 9999-12-31 is no instant an answer can show.
      assertNamesField(
        await harness.call('GET', '/v1/runs?createdBefore=9999-12-31T23:59:60Z', { token }),
        'query:/createdBefore',
      );
      const stored = await harness.call('POST', '/v1/signals', {
        token,
        body: { type: 't', subject: 's', source: 'fuzz', sourceId: 'leap', observedAt: '9999-12-31T23:00:00-14:00' },
      });
      assertNamesField(stored, '/observedAt');
      const fine = await harness.call(
        'GET',
        '/v1/runs?createdAfter=0001-01-01T00:00:00Z&createdBefore=9999-12-31T23:59:59%2B14:00',
        { token },
      );
      assert.equal(fine.status, 200, fine.text);
    });

    it('schema ids that name Object.prototype members are 404', async () => {
      for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
        const res = await harness.call('GET', `/v1/schemas/${id}`);
        assert.equal(res.status, 404, `${id}: ${res.text}`);
        assert.equal(res.body.error, 'notFound');
      }
      assert.equal((await harness.call('GET', '/v1/schemas/HandshakeRequest')).status, 200);
    });

    it('template ids that name Object.prototype members are 404', async () => {
      for (const id of ['__proto__', 'constructor', 'toString']) {
        const res = await harness.call('POST', `/v1/workflows/templates/${id}/run`, {
          token,
          body: { templateId: id, request: 'x' },
        });
        assert.equal(res.status, 404, `${id}: ${res.text}`);
      }
    });

    it('a catalog listing url must be http(s)', async () => {
      for (const url of ['javascript:alert(1)', 'data:text/html,hi', 'file:///etc/passwd', 'ftp://example.com/x']) {
        const res = await harness.call('POST', '/v1/hunt/catalog/import', {
          token,
          body: { listings: [{ title: 'Bike', price: 10, url }] },
        });
        assert.equal(res.status, 400, `${url}: ${res.text}`);
        assert.deepEqual([...new Set(res.body.details.map((d: any) => d.path))], ['/listings/0/url'], res.text);
      }
      const csv = await harness.call('POST', '/v1/hunt/catalog/import', {
        token,
        body: { csv: 'title,price,url\nBike,10,javascript:alert(1)\n' },
      });
      assert.equal(csv.status, 400, csv.text);
      const ok = await harness.call('POST', '/v1/hunt/catalog/import', {
        token,
        body: { listings: [{ title: 'Bike', price: 10, url: 'HTTPS://shop.example/bike' }] },
      });
      assert.equal(ok.status, 201, ok.text);
    });
  });
});
