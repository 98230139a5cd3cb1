import { Type, type Static } from '@sinclair/typebox';
import { Page, PageQuery, StringEnum, Text, Timestamp } from '../../shared/schemas/common.js';

export const GRANT_STATUSES = ['active', 'revoked', 'expired', 'spent'] as const;

const Names = (description: string) => Type.Array(Text(100), { maxItems: 50, uniqueItems: true, description });

export const AutonomyGrantCreate = Type.Object(
  {
    environments: Type.Array(Text(100), {
      minItems: 1,
      maxItems: 20,
      uniqueItems: true,
      description: 'Target environments a run may use the grant for (`development` covers environment-setup runs)',
    }),
    allowedActions: Names(
      'Actions the grant covers (delivery: configure, validate, deploy, monitor; environment: its setup steps)',
    ),
    requireApproval: Type.Optional(Names('Actions the grant leaves to a person')),
    allowCommands: Type.Optional(
      Type.Boolean({ description: 'Actions that run a command are covered (default false)' }),
    ),
    dryRun: Type.Optional(
      Type.Boolean({ description: 'Deploys stay dry runs even with a CI connector (default true)' }),
    ),
    workdir: Type.Optional(Text(1000)),
    maxActions: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1000, description: 'Actions one run may take under it (default 5)' }),
    ),
    budget: Type.Integer({ minimum: 1, maximum: 100_000, description: 'Actions all runs together may take under it' }),
    expiresAt: Type.String({
      format: 'date-time',
      description: 'When the grant stops covering anything (in the future)',
    }),
  },
  { $id: 'AutonomyGrantCreate', additionalProperties: false },
);
export type AutonomyGrantCreate = Static<typeof AutonomyGrantCreate>;

export const AutonomyGrantRevoke = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500 })) },
  { $id: 'AutonomyGrantRevoke' },
);

export const AutonomyGrantView = Type.Object(
  {
    grantId: Type.String(),
    status: StringEnum(GRANT_STATUSES),
    createdBy: Type.String({
      description:
        'The approver who made it; a run this member submits cannot use it unless the policy allows `autonomy`',
    }),
    environments: Type.Array(Type.String()),
    allowedActions: Type.Array(Type.String()),
    requireApproval: Type.Array(Type.String()),
    allowCommands: Type.Boolean(),
    dryRun: Type.Boolean(),
    workdir: Type.Union([Type.String(), Type.Null()]),
    maxActions: Type.Integer(),
    budget: Type.Integer(),
    used: Type.Integer(),
    expiresAt: Timestamp,
    revokedAt: Type.Union([Timestamp, Type.Null()]),
    createdAt: Timestamp,
  },
  { $id: 'AutonomyGrant' },
);
export const AutonomyGrantReply = Type.Object(
  { ok: Type.Literal(true), grant: AutonomyGrantView },
  { $id: 'AutonomyGrantReply' },
);
export const AutonomyGrantPage = Page('grants', AutonomyGrantView, 'AutonomyGrantPage');
export const AutonomyGrantListQuery = PageQuery;
