import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Capability, ConnectorId, ResourcePattern } from './connector-schemas.js';
import { AnyObject, Id, Ok, OptionalRef, Page, PageQuery, StringEnum, Timestamp } from '../../shared/schemas/common.js';
import { ACTIONS } from './machines.js';

/** Schemas of bridge actions; the status vocabulary is the action machine's. */

export const ActionStatus = StringEnum(ACTIONS.statuses);
export const ACTION_HOSTINGS = ['hosted', 'client'] as const;
/** Statuses a client reports through update (the others are the worker's, the clock's or run's). */
export const ACTION_CLIENT_STATUSES = ['succeeded', 'delivered', 'failed'] as const;

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ActionCreate = Type.Object(
  {
    connectorId: ConnectorId,
    capability: Capability,
    input: Type.Optional(
      Type.Object(
        {},
        { additionalProperties: true, description: 'What the provider needs (to, text, ...); sent as data.input' },
      ),
    ),
    resource: Type.Optional(ResourcePattern),
    threadId: OptionalRef("A channel thread (thr_...) the action belongs to; it shows in the thread's timeline"),
    sessionId: OptionalRef('A connection session (csn_...) the action runs under; revoked or expired: 409'),
    caseId: OptionalRef('Your case reference'),
    missionId: OptionalRef('A proxy mission (prx_...)'),
  },
  { $id: 'BridgeActionCreate', additionalProperties: true },
);
export type ActionCreate = Static<typeof ActionCreate>;

export const ActionUpdate = Type.Object(
  {
    status: StringEnum(ACTION_CLIENT_STATUSES, {
      description: 'What the client-hosted adapter (or the provider, by your hand) reports',
    }),
    response: Type.Optional(AnyObject),
    proof: Type.Optional(AnyObject),
    error: Type.Optional(AnyObject),
    providerRef: Type.Optional(
      Type.String({ minLength: 1, maxLength: 300, description: "The provider's id for it, which its callbacks name" }),
    ),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { $id: 'BridgeActionUpdate', additionalProperties: true },
);

export const ActionListQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(ActionStatus),
    connectorId: Type.Optional(ConnectorId),
    capability: Type.Optional(Capability),
    threadId: Type.Optional(Id()),
    missionId: Type.Optional(Id()),
    caseId: Type.Optional(Id()),
  }),
]);

export const ActionView = Type.Object(
  {
    actionId: Type.String(),
    connectorId: Type.String(),
    capability: Type.String(),
    resource: Nullable(Type.String()),
    input: AnyObject,
    hosting: StringEnum(ACTION_HOSTINGS, {
      description: 'hosted: the server calls the endpoint; client: a bridge://client adapter reports through update',
    }),
    status: ActionStatus,
    allowedTransitions: Type.Array(ActionStatus),
    idempotencyKey: Type.String({ description: 'Sent as Idempotency-Key on every attempt' }),
    attempts: Type.Integer(),
    request: Nullable(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'What was sent: endpoint, body hash, credential reference (never a value), signed; `adapter` names the ' +
            'provider adapter that made the call',
        },
      ),
    ),
    response: Nullable(AnyObject),
    proof: Nullable(
      Type.Object({}, { additionalProperties: true, description: 'Request hash, response status and hash, timing' }),
    ),
    error: Nullable(AnyObject),
    providerRef: Nullable(Type.String()),
    refs: Type.Object({
      threadId: Nullable(Type.String()),
      sessionId: Nullable(Type.String()),
      caseId: Nullable(Type.String()),
      missionId: Nullable(Type.String()),
      runId: Nullable(Type.String({ description: 'The run whose bridge step performs it' })),
    }),
    nextAttemptAt: Nullable(Timestamp),
    clientDeadline: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'When an action waiting for its client (awaitingClient) or its provider (awaitingProvider) times out',
      }),
    ),
    history: Type.Array(
      Type.Object({
        from: Nullable(ActionStatus),
        to: ActionStatus,
        at: Timestamp,
        actor: Type.String(),
        note: Nullable(Type.String()),
      }),
    ),
    finishedAt: Nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'BridgeAction' },
);

export const ActionReply = Ok({ action: ActionView }, 'BridgeActionReply');
export const ActionPage = Page('actions', ActionView, 'BridgeActionPage');

export const ActionAwaitingClientPayload = Type.Object(
  {
    actionId: Type.String(),
    connectorId: Type.String(),
    endpoint: Type.String(),
    capability: Type.String(),
    deadline: Timestamp,
  },
  { $id: 'BridgeActionAwaitingClientPayload' },
);
