import { Type } from '@sinclair/typebox';
import { MAIL_DELIVERIES, PLANS, RoleName } from '../../shared/schemas/auth.js';
import { Ok, StringEnum, Timestamp } from '../../shared/schemas/common.js';

export const SignIn = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    accountId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'The account to sign in to, when the email is a member of several (409 without it names them)',
      }),
    ),
  },
  { $id: 'SignIn' },
);

const SessionInfo = Type.Object({
  sessionId: Type.String(),
  csrfToken: Type.String({
    description: 'Send it back in X-CSRF-Token on every mutating request signed in by the cookie',
  }),
  expiresAt: Timestamp,
});

export const SignedIn = Ok({ session: SessionInfo }, 'SignedIn');

export const AccountOverview = Type.Object(
  {
    accountId: Type.String(),
    email: Type.String(),
    name: Type.String(),
    plan: StringEnum(PLANS),
    activated: Type.Boolean(),
    usage: Type.Object({
      period: Type.String({ description: 'Calendar month (UTC), YYYY-MM' }),
      workflowRequests: Type.Integer(),
      limit: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Monthly workflow quota of the plan; null: unlimited',
      }),
      unverifiedUsed: Type.Integer(),
      unverifiedLimit: Type.Integer(),
    }),
  },
  { $id: 'AccountOverview' },
);

const CallerMember = Type.Object({
  memberId: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: RoleName,
});

export const CurrentSession = Ok(
  {
    account: AccountOverview,
    member: Type.Union([CallerMember, Type.Null()], {
      description: 'The member of the token or session, with its role',
    }),
    session: Type.Union([SessionInfo, Type.Null()]),
  },
  'CurrentSession',
);
export const ActivationResent = Ok(
  { sentTo: Type.String(), delivery: StringEnum(MAIL_DELIVERIES) },
  'ActivationResent',
);
