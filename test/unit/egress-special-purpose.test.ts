import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkEgressUrl, EgressRefused, egressFetch, isBlockedAddress } from '../../shared/http/egress.js';
import { NEUTRAL_REFUSAL, refusedTargets } from '../support/egress-targets.js';

describe('egress: every special-purpose address and local name is refused', () => {
  it('registration refuses each form (400 invalidPayload), with private egress off', () => {
    for (const [form, url] of refusedTargets(443)) {
      assert.throws(
        () => checkEgressUrl(url, { allowPrivate: false, requireHttps: false }),
        (err) => err instanceof EgressRefused && err.status === 400,
        form,
      );
    }
  });

  it('registration accepts public names and addresses, a trailing dot included', () => {
    for (const url of [
      'https://example.com/hook',
      'https://hooks.example.com./x',
      'https://93.184.216.34/hook',
      'https://[2606:2800:220:1::1]/hook',
      'https://db.internal.example.com/hook',
    ]) {
      assert.doesNotThrow(() => checkEgressUrl(url, { allowPrivate: false, requireHttps: true }), url);
    }
  });

  it('the classifier refuses each embedded or special form and allows public-looking addresses', () => {
    for (const ip of [
      '::7f00:1',
      '::ffff:0:7f00:1',
      '64:ff9b:1::7f00:1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
      '::ffff:7f00:1',
      '::ffff:93.184.216.34',
      '2001:db8::1',
      '3fff::1',
      '192.0.2.5',
      '198.18.0.1',
      '2001:2::1',
      '240.0.0.1',
      '255.255.255.255',
      'fe80::1%eth0',
      '[::1]',
      'not-an-ip',
    ]) {
      assert.ok(isBlockedAddress(ip), ip);
    }
    for (const ip of [
      '93.184.216.34',
      '8.8.8.8',
      '1.1.1.1',
      '2606:2800:220:1::1',
      '2001:4860:4860::8888',
      '2a00:1450:4001:81c::200e',
      '[2606:4700::1111]',
    ]) {
      assert.ok(!isBlockedAddress(ip), ip);
    }
  });
});

describe('egress at connect time (private egress off)', () => {
  let requests = 0;
  const server = http.createServer((_req, res) => {
    requests++;
    res.end('reached');
  });
  let port = 0;
  before(async () => {
    // Dual-stack where the machine has IPv6, so a mapped or compatible form would reach it if it got through.
    await new Promise<void>((r) => server.listen(0, r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('refuses each form before connecting, with one neutral reason', async () => {
    for (const [form, url] of refusedTargets(port)) {
      await assert.rejects(egressFetch(false, url, { timeoutMs: 5000 }), (err) => {
        assert.ok(err instanceof EgressRefused, `${form}: ${(err as Error).message}`);
        assert.match(err.message, NEUTRAL_REFUSAL, form);
        return true;
      });
    }
    assert.equal(requests, 0, 'no refused form reached the local server');
  });

  it(
    'a name that does not resolve gets the same reason as a blocked one, so a caller cannot probe internal ' + 'names',
    async () => {
      await assert.rejects(
        egressFetch(false, `http://no-such-host.corp.invalid:${port}/`, { timeoutMs: 5000 }),
        (err) => err instanceof EgressRefused && NEUTRAL_REFUSAL.test(err.message),
      );
    },
  );

  it('with private egress allowed, the same local server is reached', async () => {
    const res = await egressFetch(true, `http://127.0.0.1:${port}/`);
    assert.deepEqual([res.status, res.text], [200, 'reached']);
  });
});
