import { Type, type Static } from '@sinclair/typebox';
import { MAIL_DELIVERIES, ROLES, RoleName } from '../../shared/schemas/auth.js';
import { Ok, StringEnum, Timestamp } from '../../shared/schemas/common.js';

export const MEMBER_STATUSES = ['invited', 'active', 'disabled'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];
export const MemberStatusName = StringEnum(MEMBER_STATUSES);

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

export const MemberView = Type.Object(
  {
    memberId: Type.String(),
    email: Type.String(),
    name: Type.String(),
    role: RoleName,
    status: MemberStatusName,
    invitedBy: Nullable(Type.String({ description: 'The member who sent the invitation' })),
    createdAt: Timestamp,
    activatedAt: Nullable(Timestamp),
    disabledAt: Nullable(Timestamp),
    inviteExpiresAt: Nullable(Timestamp),
  },
  { $id: 'Member' },
);
export type MemberView = Static<typeof MemberView>;

export const MemberListQuery = Type.Object({
  role: Type.Optional(RoleName),
  status: Type.Optional(MemberStatusName),
});
export type MemberListQuery = Static<typeof MemberListQuery>;

export const MemberList = Ok({ members: Type.Array(MemberView) }, 'MemberList');
export const MemberOne = Ok({ member: MemberView }, 'MemberOne');

export const MemberInvite = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    role: StringEnum(ROLES, { description: 'Only an owner may invite an owner or an admin' }),
  },
  { $id: 'MemberInvite' },
);
export type MemberInvite = Static<typeof MemberInvite>;

export const MemberInvited = Ok(
  {
    member: MemberView,
    invitation: Type.Object({ sentTo: Type.String(), delivery: StringEnum(MAIL_DELIVERIES), expiresAt: Timestamp }),
  },
  'MemberInvited',
);

export const MemberActivate = Type.Object(
  {
    invitationCode: Type.String({
      minLength: 10,
      maxLength: 200,
      description: 'The one-time code of the invitation mail',
    }),
    password: Type.String({ minLength: 8, maxLength: 1024, description: 'The password the member signs in with' }),
  },
  { $id: 'MemberActivate' },
);
export type MemberActivate = Static<typeof MemberActivate>;

export const MemberActivated = Ok(
  { accountId: Type.String(), memberId: Type.String(), email: Type.String(), role: RoleName },
  'MemberActivated',
);

export const MemberRoleChange = Type.Object({ role: RoleName }, { $id: 'MemberRoleChange' });
export type MemberRoleChange = Static<typeof MemberRoleChange>;
