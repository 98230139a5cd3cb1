import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../shared/log.js';

describe('log redaction', () => {
  it('blanks authorization headers, passwords, secrets and tokens', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const log = createLogger('info', {}, sink);
    log.info(
      {
        req: { headers: { authorization: 'Bearer awp_supersecret' } },
        body: { password: 'hunter2hunter2', secret: 'whsec_x', token: 'awp_t' },
        apiKey: 'k',
      },
      'hello',
    );
    const out = lines.join('');
    for (const secret of ['awp_supersecret', 'hunter2hunter2', 'whsec_x', 'awp_t'])
      assert.ok(!out.includes(secret), `${secret} leaked: ${out}`);
    assert.match(out, /\[redacted\]/);
    assert.match(out, /"msg":"hello"/);
  });
});
