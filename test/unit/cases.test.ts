import assert from 'node:assert/strict';
import {
  caseRefOf,
  changedFields,
  contactIdentity,
  decodeTimelineCursor,
  encodeTimelineCursor,
} from '../../jobs/resolve/cases/logic.js';
import { ACTIONS, CASES, DEADLINES, OPEN_ACTION_STATUSES } from '../../jobs/resolve/cases/machines.js';
import {
  ACTION_STATUSES,
  CASE_STATUSES,
  DEADLINE_CLIENT_MOVES,
  DEADLINE_STATUSES,
} from '../../jobs/resolve/cases/schemas.js';

describe('case workspaces: status tables and pure helpers', () => {
  it("list each table's statuses as the API enums do, with closed, met, waived, done and canceled final", () => {
    assert.deepEqual(
      [CASES.statuses, DEADLINES.statuses, ACTIONS.statuses],
      [[...CASE_STATUSES], [...DEADLINE_STATUSES], [...ACTION_STATUSES]],
    );
    assert.deepEqual(
      [CASES.terminal, DEADLINES.terminal, ACTIONS.terminal],
      [['closed'], ['met', 'waived'], ['done', 'canceled']],
    );
    assert.deepEqual(OPEN_ACTION_STATUSES, ['open', 'inProgress', 'blocked']);
  });

  it('reopen a resolved case, close any live one, and let a client settle any live deadline', () => {
    assert.ok(CASES.canMove('resolved', 'open') && CASES.canMove('resolved', 'investigating'));
    for (const s of CASES.statuses.filter((x) => !CASES.isTerminal(x))) assert.ok(CASES.canMove(s, 'closed'), s);
    for (const s of DEADLINES.statuses.filter((x) => !DEADLINES.isTerminal(x)))
      for (const to of DEADLINE_CLIENT_MOVES) assert.ok(DEADLINES.canMove(s, to), `${s} → ${to}`);
    assert.ok(DEADLINES.canMove('open', 'missed') && !DEADLINES.canMove('missed', 'open'));
  });

  it('compare contacts by lower-case email and E.164 phone, and flag an impossible phone', () => {
    assert.deepEqual(contactIdentity({ email: ' Ana@Example.COM ', phone: '+1 (415) 555-0100' }), {
      email: 'ana@example.com',
      phone: '+14155550100',
      badPhone: false,
    });
    assert.deepEqual(contactIdentity({ phone: '555' }), { email: null, phone: null, badPhone: true });
  });

  it('round-trip timeline cursors and refuse ones it did not make', () => {
    const pos = { atUs: '1767225600123456', id: 'tle_0193abc' };
    assert.deepEqual(decodeTimelineCursor(encodeTimelineCursor(pos)), pos);
    for (const bad of [
      'garbage',
      Buffer.from('1|x y').toString('base64url'),
      Buffer.from('abc|tle_1').toString('base64url'),
    ])
      assert.equal(decodeTimelineCursor(bad), null, bad);
  });

  it("read a run's case from metadata: caseId first, then caseKey with its title", () => {
    assert.deepEqual(caseRefOf({ caseId: 'case_1', caseKey: 'k' }), { caseId: 'case_1' });
    assert.deepEqual(caseRefOf({ caseKey: ' k-1 ', caseTitle: 'Claim' }), { externalKey: 'k-1', title: 'Claim' });
    assert.equal(caseRefOf({ caseId: 7, caseKey: '' }), null);
  });

  it('count a field as changed only when its value differs, whatever the key order of objects', () => {
    assert.deepEqual(
      changedFields(
        { metadata: { b: 1, a: { y: 2, x: 1 } }, title: 'T', owner: null },
        { metadata: { a: { x: 1, y: 2 }, b: 1 }, title: 'T', owner: null, status: undefined },
      ),
      [],
    );
    assert.deepEqual(changedFields({ title: 'T', owner: 'ana' }, { title: 'U', owner: null }), ['title', 'owner']);
  });
});
