import assert from 'node:assert/strict';
import {
  actingRole,
  governRefusal,
  grantRefusal,
  leavesNoOwner,
  tokenManagementRefusal,
} from '../../jobs/accounts/logic.js';

describe('member ranks (pure)', () => {
  it('owners govern everyone; admins only the roles below; the rest no one', () => {
    assert.equal(governRefusal('owner', 'owner', 'viewer'), null);
    assert.equal(governRefusal('admin', 'developer', 'approver'), null);
    assert.match(governRefusal('admin', 'admin', 'viewer')!, /only an owner/);
    assert.match(governRefusal('admin', 'developer', 'admin')!, /only an owner may make a member an admin/);
    assert.match(governRefusal('developer', 'viewer')!, /owner or an admin/);
    assert.match(grantRefusal(null, 'viewer')!, /owner or an admin/);
    assert.equal(grantRefusal('admin', 'viewer'), null);
  });

  it('an operator token acts as an owner', () => {
    assert.equal(actingRole({ scopes: ['admin'], role: 'viewer' }), 'owner');
    assert.equal(actingRole({ scopes: ['runs:read'], role: 'viewer' }), 'viewer');
  });

  it('the last active owner is kept; an invited or disabled owner does not count as the last', () => {
    assert.equal(leavesNoOwner({ role: 'owner', status: 'active' }, 0, 'admin'), true);
    assert.equal(leavesNoOwner({ role: 'owner', status: 'active' }, 0), true);
    assert.equal(leavesNoOwner({ role: 'owner', status: 'active' }, 0, 'owner'), false);
    assert.equal(leavesNoOwner({ role: 'owner', status: 'active' }, 1, 'viewer'), false);
    assert.equal(leavesNoOwner({ role: 'owner', status: 'invited' }, 0, 'viewer'), false);
    assert.equal(leavesNoOwner({ role: 'admin', status: 'active' }, 0), false);
  });

  it("a member manages its own tokens; another member's need members:manage and the rank", () => {
    const dev = { memberId: 'mem_d', role: 'developer' as const, scopes: ['tokens:manage'] };
    assert.equal(tokenManagementRefusal(dev, { memberId: 'mem_d', role: 'developer' }), null);
    assert.match(tokenManagementRefusal(dev, { memberId: 'mem_o', role: 'owner' })!, /members:manage/);
    const admin = { memberId: 'mem_a', role: 'admin' as const, scopes: ['tokens:manage', 'members:manage'] };
    assert.equal(tokenManagementRefusal(admin, { memberId: 'mem_d', role: 'developer' }), null);
    assert.match(tokenManagementRefusal(admin, { memberId: 'mem_o', role: 'owner' })!, /only an owner/);
  });
});
