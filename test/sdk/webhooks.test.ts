import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AwpWebhookError, createAwpClient } from '../../sdk/src/index.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';

interface Delivery {
  raw: string;
  headers: Record<string, string>;
}

/** A receiver that keeps each delivery as it came (raw body, headers) and verifies nothing: the SDK does. */
async function rawReceiver() {
  const got: Delivery[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      got.push({ raw, headers: req.headers as Record<string, string> });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    stop: () => new Promise((r) => server.close(r)),
  };
}

describe('SDK: webhooks.verify', () => {
  it('verifies a run.completed delivery signed by the service, and refuses forged ones', async () => {
    const { token } = await harness.account();
    const awp = createAwpClient({ baseUrl: harness.url, token });
    const receiver = await rawReceiver();
    try {
      const sub = await awp.unwrap(
        awp.api.POST('/v1/event-subscriptions', {
          body: { endpoint: receiver.url, events: ['run.completed'], mode: 'push' },
        }),
      );
      const secret = (sub as { secret: string }).secret;
      assert.match(secret, /^whsec_/);
      const run = await awp.runs.submit({ request: 'audit this', domainRoute: ['resolve'] });
      const [delivery] = await until(
        () => receiver.got,
        (g) => g.length > 0,
      );
      const event = awp.webhooks.verify(delivery!.raw, delivery!.headers, secret);
      assert.equal(event.type, 'run.completed');
      if (event.type === 'run.completed') assert.equal(event.data.runId, run.runId);

      const forgedBody = delivery!.raw.replace(run.runId, 'run_someoneelse');
      assert.notEqual(forgedBody, delivery!.raw);
      assert.throws(() => awp.webhooks.verify(forgedBody, delivery!.headers, secret), AwpWebhookError);
      const otherSecret = `whsec_${Buffer.from('another secret of 32 bytes.......').toString('base64')}`;
      assert.throws(() => awp.webhooks.verify(delivery!.raw, delivery!.headers, otherSecret), AwpWebhookError);
      const stale = { ...delivery!.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) };
      assert.throws(() => awp.webhooks.verify(delivery!.raw, stale, secret), /timestamp|refused/i);
    } finally {
      await receiver.stop();
    }
  });
});
