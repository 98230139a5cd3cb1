import { Type } from '@sinclair/typebox';
import { AnyObject, Id, PageQuery, StringEnum, Timestamp } from '../../shared/schemas/common.js';
import { ENVELOPE_KINDS, ENVELOPES } from './machine.js';

export const EnvelopeStatus = StringEnum(ENVELOPES.statuses, {
  description: 'Delivery status; moves follow GET /v1/a2a/contract',
});
export const EnvelopeKind = StringEnum(ENVELOPE_KINDS);

/** A party of an envelope: a registered agent's id, or `awp` for this service. */
export const PartyId = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$',
  description: 'agentId of a registered agent, or awp (this service)',
});
export const SERVICE_PARTY = 'awp';

export const EnvelopeCreate = Type.Object(
  {
    recipient: PartyId,
    sender: Type.Optional(PartyId),
    runId: Type.Optional(Id('Run the envelope belongs to')),
    taskId: Type.Optional(Id('Task the envelope belongs to')),
    kind: Type.Optional(EnvelopeKind),
    payload: AnyObject,
  },
  { $id: 'EnvelopeCreate', description: 'runId or taskId (or both) is required; sender defaults to awp' },
);

export const EnvelopeUpdate = Type.Object(
  {
    status: EnvelopeStatus,
    note: Type.Optional(Type.String({ maxLength: 2000 })),
    result: Type.Optional(AnyObject),
    error: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { $id: 'EnvelopeUpdate', description: 'result goes with completed; error with failed or rejected' },
);

export const EnvelopeListQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(EnvelopeStatus),
    recipient: Type.Optional(PartyId),
    runId: Type.Optional(Id()),
    taskId: Type.Optional(Id()),
    planId: Type.Optional(Id()),
  }),
]);

const Move = Type.Object({
  from: Type.Union([EnvelopeStatus, Type.Null()]),
  to: EnvelopeStatus,
  at: Timestamp,
  actor: Type.String(),
  note: Type.Union([Type.String(), Type.Null()]),
});

export const EnvelopeView = Type.Object(
  {
    msgId: Type.String(),
    planId: Type.Union([Type.String(), Type.Null()]),
    kind: EnvelopeKind,
    sender: Type.String(),
    recipient: Type.String(),
    runId: Type.Union([Type.String(), Type.Null()]),
    taskId: Type.Union([Type.String(), Type.Null()]),
    payload: AnyObject,
    status: EnvelopeStatus,
    allowedTransitions: Type.Array(EnvelopeStatus),
    result: Type.Union([AnyObject, Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    history: Type.Array(Move),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Envelope' },
);
