import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../shared/schemas/common.js';
import { GATE_KINDS } from './vocabulary.js';

export const GateKind = StringEnum(GATE_KINDS, { description: 'deploy, payment, autonomy, mandate or waitpoint' });

export const ApprovalPolicyUpdate = Type.Object(
  {
    selfApproval: Type.Array(GateKind, {
      uniqueItems: true,
      maxItems: GATE_KINDS.length,
      description: 'Gate kinds the member who submitted a run may approve themselves; empty (the default): none',
    }),
  },
  { $id: 'ApprovalPolicyUpdate', additionalProperties: false },
);
export type ApprovalPolicyUpdate = Static<typeof ApprovalPolicyUpdate>;

export const ApprovalPolicyReply = Type.Object(
  {
    ok: Type.Literal(true),
    selfApproval: Type.Array(GateKind),
    gateKinds: Type.Array(GateKind, { description: 'Every gate kind an approval can be of' }),
    updatedBy: Type.Union([Type.String(), Type.Null()]),
    updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'ApprovalPolicyReply' },
);
