import assert from 'node:assert/strict';
import { extendRoute } from '../../jobs/orchestrator/extend-route.js';

describe('route extension after a waitpoint', () => {
  it('a buy after hunt inserts pay after the waiting step, and after a check still to run, and records why', () => {
    assert.deepEqual(extendRoute(['hunt', 'resolve'], 0, 'hunt', 'buy', ['hunt', 'resolve', 'pay']), {
      route: ['hunt', 'resolve', 'pay'],
      extension: { after: 'hunt', action: 'buy', added: 'pay', reason: 'buy after hunt continues into pay' },
    });
  });

  it('a route that already goes there next is left as it is; an action that names no domain changes nothing', () => {
    assert.deepEqual(extendRoute(['hunt', 'pay'], 0, 'hunt', 'buy', ['hunt', 'pay']), { route: ['hunt', 'pay'] });
    assert.deepEqual(extendRoute(['pay'], 0, 'pay', 'settle', ['pay']), { route: ['pay'] });
    assert.deepEqual(extendRoute(['hunt'], 0, 'hunt', undefined, ['hunt', 'pay']), { route: ['hunt'] });
  });

  it('a domain that is not available is not added: the extension says so and the run ends with what it has', () => {
    const plan = extendRoute(['hunt'], 0, 'hunt', 'buy', ['hunt', 'resolve']);
    assert.deepEqual(plan.route, ['hunt']);
    assert.equal(plan.extension?.added, null);
    assert.match(plan.extension!.reason, /buy continues into pay, which is not available yet/);
  });
});
