import { defineRoute, Reply } from '../../shared/http/route-spec.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { IdParams } from '../../shared/schemas/common.js';
import {
  MemberActivate,
  MemberActivated,
  MemberInvite,
  MemberInvited,
  MemberList,
  MemberListQuery,
  MemberOne,
  MemberRoleChange,
} from './members-schemas.js';
import {
  acceptInvitation,
  changeRole,
  disableMember,
  enableMember,
  fetchMember,
  inviteMember,
  listAccountMembers,
  withdrawInvitation,
} from './members-service.js';
import { memberView } from './members-views.js';

/** Reading the roster goes with reading the audit log (owners, admins, approvers); changing it needs members:manage. */
const r = routeGroup('members', { read: ['audit:read'], write: ['members:manage'] });
const one = (row: Parameters<typeof memberView>[0]) => ({ ok: true as const, member: memberView(row) });

export const routes = [
  r.get('/v1/members', "The account's members with their roles and status", {
    query: MemberListQuery,
    response: { 200: MemberList },
    mcpTool: 'members.list',
    handler: async ({ query, principal }, deps) => ({
      ok: true,
      members: (await listAccountMembers(deps, principal, query)).map(memberView),
    }),
  }),
  r.get('/v1/members/{memberId}', 'One member of the account', {
    response: { 200: MemberOne },
    handler: async ({ params, principal }, deps) => one(await fetchMember(deps, principal, params.memberId)),
  }),
  r.post('/v1/members/invite', 'Invite a person by email with a role; the one-time code goes out by mail', {
    description:
      'Owners and admins only; only an owner invites an owner or an admin (403). ' +
      '409 when the account has a member with this email.',
    body: MemberInvite,
    response: { 201: MemberInvited },
    handler: async ({ body, principal }, deps) => {
      const { row, delivery, expiresAt } = await inviteMember(deps, principal, body);
      const invitation = { sentTo: row.email, delivery, expiresAt: expiresAt.toISOString() };
      return new Reply(201, { ok: true, member: memberView(row), invitation });
    },
  }),
  r.post('/v1/members/activate', "Accept an invitation with the mail's code and a password; then sign in", {
    auth: 'public',
    body: MemberActivate,
    response: { 200: MemberActivated },
    handler: async ({ body }, deps) => {
      const row = await acceptInvitation(deps, body);
      return { ok: true, accountId: row.account_id, memberId: row.id, email: row.email, role: row.role };
    },
  }),
  r.post('/v1/members/{memberId}/role', "Change a member's role; its tokens and sessions narrow or widen at once", {
    description:
      'Only an owner changes an owner or admin, or makes one (403); ' +
      'the last active owner cannot be demoted (409).',
    body: MemberRoleChange,
    response: { 200: MemberOne },
    handler: async ({ body, params, principal }, deps) =>
      one(await changeRole(deps, principal, params.memberId, body.role)),
  }),
  r.post('/v1/members/{memberId}/disable', 'Disable a member: its tokens and dashboard sessions stop at once', {
    description: 'The last active owner cannot be disabled (409); a pending invitation is withdrawn instead (409).',
    response: { 200: MemberOne },
    handler: async ({ params, principal }, deps) => one(await disableMember(deps, principal, params.memberId)),
  }),
  r.post('/v1/members/{memberId}/enable', 'Let a disabled member in again; its unrevoked tokens work again', {
    response: { 200: MemberOne },
    handler: async ({ params, principal }, deps) => one(await enableMember(deps, principal, params.memberId)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/members/{memberId}',
    tag: 'members',
    auth: 'bearer',
    scopes: ['members:manage'],
    summary: 'Withdraw a pending invitation (its code stops working); 409 for a member who accepted (disable it)',
    params: IdParams('memberId'),
    response: { 200: MemberOne },
    handler: async ({ params, principal }, deps) => one(await withdrawInvitation(deps, principal, params.memberId)),
  }),
];
