import assert from 'node:assert/strict';
import { RESUME_ACTIONS } from '../../shared/domain-names.js';
import { ERROR_STATUS } from '../../shared/errors.js';
import { ERROR_CODES } from '../../shared/schemas/common.js';
import { harness } from '../support/harness.js';

/**
 * Closed vocabularies still written as unions of literals in files this
 * change could not touch, each with the edit that removes it. The test fails
 * when one of them is gone too, so the list shrinks instead of rotting.
 */
const PENDING: Record<string, string> = {};

/** JSON pointers of every anyOf/oneOf whose members are all string constants: a closed vocabulary without its enum. */
function unenumedVocabularies(doc: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${pointer}/${i}`));
    if (!node || typeof node !== 'object') return;
    const obj = node as Record<string, unknown>;
    for (const key of ['anyOf', 'oneOf']) {
      const members = obj[key];
      if (
        Array.isArray(members) &&
        members.length > 0 &&
        members.every((m) => typeof (m as { const?: unknown })?.const === 'string')
      )
        found.push(`${pointer}/${key}`);
    }
    for (const [k, v] of Object.entries(obj)) walk(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  walk(doc, '#');
  return found;
}

describe('closed vocabularies are enums, written once', () => {
  it('no schema in /openapi.json is an anyOf/oneOf of string constants (an un-enumed closed vocabulary)', async () => {
    const doc = (await harness.call('GET', '/openapi.json')).body;
    const found = unenumedVocabularies(doc);
    const unexpected = found.filter((p) => !(p in PENDING));
    assert.deepEqual(unexpected, [], `use StringEnum (shared/schemas/common.ts) for: ${unexpected.join(', ')}`);
    const fixed = Object.keys(PENDING).filter((p) => !found.includes(p));
    assert.deepEqual(fixed, [], `now an enum: remove from PENDING in this test: ${fixed.join(', ')}`);
  });

  it('the walker itself finds a union of literals, wherever it is nested', () => {
    const doc = {
      paths: {
        '/a/{b}': {
          post: {
            schema: {
              items: {
                anyOf: [
                  { const: 'x', type: 'string' },
                  { const: 'y', type: 'string' },
                ],
              },
            },
          },
        },
      },
    };
    assert.deepEqual(unenumedVocabularies(doc), ['#/paths/~1a~1{b}/post/schema/items/anyOf']);
    assert.deepEqual(
      unenumedVocabularies({ anyOf: [{ const: 'x' }, { type: 'null' }] }),
      [],
      'a nullable string is not a vocabulary',
    );
  });

  it('the envelope enum, the contract summary and shared/errors.ts name the same error codes', async () => {
    assert.deepEqual(Object.keys(ERROR_STATUS).sort(), [...ERROR_CODES].sort());
    const contract = await harness.call('GET', '/v1/contract');
    assert.deepEqual(contract.body.errorCodes, [...ERROR_CODES]);
    const doc = (await harness.call('GET', '/openapi.json')).body;
    assert.deepEqual(doc.components.schemas.ErrorEnvelope.properties.error.enum, [...ERROR_CODES]);
  });

  it("the request schemas' resume actions are the ones the domain modules declare", async () => {
    const doc = (await harness.call('GET', '/openapi.json')).body;
    assert.deepEqual(doc.components.schemas.OrchestratorRequest.properties.action.enum, RESUME_ACTIONS);
    assert.deepEqual(doc.components.schemas.RunResumeRequest.properties.action.enum, RESUME_ACTIONS);
  });

  it('an enum still validates: a value outside it is 400 naming the field', async () => {
    const { token } = await harness.account();
    const bad = await harness.call('GET', '/v1/event-deliveries?status=lost', { token });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.details[0].path, 'query:/status');
    const nlp = await harness.call('POST', '/v1/tools/nlp', {
      token,
      body: { query: 'find a bike', domainRoute: ['hunt', 'teleport'] },
    });
    assert.deepEqual([nlp.status, nlp.body.details[0].path], [400, '/domainRoute/1']);
    const chaos = await harness.call('POST', '/v1/sandbox/midnight-arbitrage', { body: { chaos: 'meteor' } });
    assert.equal(chaos.status, 400);
    const fine = await harness.call('POST', '/v1/sandbox/midnight-arbitrage', { body: {} });
    assert.deepEqual([fine.status, fine.body.chaos], [200, ''], 'the default still applies');
  });
});
