import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { AppError, isPermanent } from '../../shared/errors.js';
import { DecisionLog, EvidenceItem, StepJobData } from '../../shared/schemas/run-data.js';
import { readAs } from '../../shared/validation.js';

describe('readAs: stored data as its declared type', () => {
  it('returns the very value when it matches, adding no defaults', () => {
    const schema = Type.Object({ a: Type.String(), b: Type.Optional(Type.Integer({ default: 7 })) });
    const value = { a: 'x' };
    assert.equal(readAs(schema, value, 'thing'), value);
    assert.deepEqual(value, { a: 'x' });
  });

  it('throws a permanent error naming what was read and every failing path', () => {
    const err = (() => {
      try {
        readAs(StepJobData, { runId: 'run_1', segment: -1, index: 'two' }, 'step job data of job 42');
      } catch (e) {
        return e;
      }
      assert.fail('readAs accepted a bad value');
    })();
    assert.ok(err instanceof AppError);
    assert.ok(isPermanent(err), 'a step fails at once instead of retrying');
    assert.match(err.message, /^step job data of job 42 does not match StepJobData: /);
    for (const path of ['/segment', '/index', '/domain'])
      assert.ok(err.message.includes(path), `${path} in: ${err.message}`);
    assert.deepEqual((err.details as Array<{ path: string }>).map((d) => d.path).sort(), [
      '/domain',
      '/index',
      '/segment',
    ]);
  });

  it('lists the first five failures and counts the rest', () => {
    const bad = Array.from({ length: 8 }, () => ({ claim: 1, sourceBound: 'yes' }));
    assert.throws(() => readAs(Type.Array(EvidenceItem), bad, 'evidence'), /\(and \d+ more\)$/);
  });

  it('reads schemas that inline the same named schema more than once', () => {
    const log = {
      decisionId: 'dec_1',
      route: ['hunt'],
      status: 'ready',
      selectedOption: null,
      counts: { evidence: 1, sourceBound: 1, contradictions: 0 },
      rejectedPaths: [{ domain: 'hunt', option: 'a', reason: 'b' }],
      evidence: [{ domain: 'hunt', claim: 'c', source: 'https://x.example', sourceBound: true }],
    };
    assert.equal(readAs(DecisionLog, log, 'decision').decisionId, 'dec_1');
    assert.equal(
      readAs(Type.Object({ a: EvidenceItem, b: EvidenceItem }), { a: log.evidence[0], b: log.evidence[0] }, 'pair').a
        .claim,
      'c',
    );
  });
});
