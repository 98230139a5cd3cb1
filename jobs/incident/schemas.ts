import { Type, type Static } from '@sinclair/typebox';
import { AnyObject, Id, Nullable, Page, PageQuery, StringEnum, Text } from '../../shared/schemas/common.js';
import { INCIDENT_SEVERITIES, IncidentReport } from '../../shared/schemas/delivery-ops.js';

/**
 * Incidents as records (issue 33 item 4): the request of `POST /v1/incident/respond`, the update bodies and the
 * views. The status list is in the order of the incident table (machine.ts, which a unit test holds to it).
 */
export const INCIDENT_STATUSES = ['triggered', 'acknowledged', 'mitigated', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
/** Statuses a client moves an incident to (`triggered` is the alerts', when a mitigated incident fires again). */
export const CLIENT_MOVES = ['acknowledged', 'mitigated', 'resolved'] as const;
export const TIMELINE_KINDS = ['alert', 'signal', 'status', 'severity', 'role', 'note', 'page', 'chat', 'run'] as const;

const Open = { additionalProperties: true };

export const IncidentStatus = StringEnum(INCIDENT_STATUSES, {
  description:
    'triggered → acknowledged | mitigated | resolved; acknowledged → mitigated | resolved; mitigated → resolved, ' +
    'or triggered again when its alert fires; resolved is final (a later firing opens a new incident)',
});

export const ChatTarget = Type.Object(
  {
    channel: Text(200),
    connectorId: Type.Optional(Id('A msg.chat connector of the account; the newest usable one when absent')),
  },
  { additionalProperties: false, description: 'Where status updates are posted (a Slack channel: #ops, ops, C0…)' },
);

export const IncidentRespondBody = Type.Object(
  {
    alerts: Type.Array(AnyObject, { maxItems: 1000 }),
    signals: Type.Optional(AnyObject),
    chat: Type.Optional(ChatTarget),
    runIds: Type.Optional(
      Type.Array(Id('A run of the account'), { maxItems: 20, uniqueItems: true, description: 'Runs to link' }),
    ),
  },
  { $id: 'IncidentRespondRequest', additionalProperties: true },
);
export type IncidentRespondBody = Static<typeof IncidentRespondBody>;

export const IncidentListQuery = Type.Object({ ...PageQuery.properties, status: Type.Optional(IncidentStatus) });

export const IncidentStatusUpdate = Type.Object(
  { status: StringEnum(CLIENT_MOVES), note: Type.Optional(Text(2000)) },
  { $id: 'IncidentStatusUpdate', additionalProperties: false },
);
export const IncidentRoleAssign = Type.Object(
  {
    role: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z][A-Za-z0-9:._-]*$' }),
    assignee: Nullable(Text(200)),
  },
  {
    $id: 'IncidentRoleAssign',
    additionalProperties: false,
    description: 'incidentCommander, communicationsLead, scribe, operationsLead:<service> or any role; null unassigns',
  },
);
export const IncidentNote = Type.Object({ text: Text(4000) }, { $id: 'IncidentNote', additionalProperties: false });

const TimelineEntry = Type.Object({
  at: Type.String(),
  kind: StringEnum(TIMELINE_KINDS),
  text: Type.String(),
  actor: Nullable(Type.String()),
});
const Role = Type.Object({ role: Type.String(), duty: Nullable(Type.String()), assignee: Nullable(Type.String()) });

export const Postmortem = Type.Object(
  {
    title: Type.String(),
    status: Type.Literal('draft'),
    summary: Type.String(),
    impact: Type.Object({}, Open),
    durations: Type.Object({}, Open),
    timeline: Type.Array(Type.Object({ at: Type.String(), text: Type.String() })),
    rootCause: Type.String(),
    actionItems: Type.Array(Type.String()),
    markdown: Type.String(),
  },
  { $id: 'IncidentPostmortem' },
);

export const IncidentView = Type.Object(
  {
    incidentId: Type.String(),
    fingerprint: Type.String(),
    title: Type.String(),
    status: IncidentStatus,
    severity: StringEnum(INCIDENT_SEVERITIES),
    severityRule: Type.String(),
    services: Type.Array(Type.String()),
    roles: Type.Array(Role),
    alertCount: Type.Integer({ description: 'Alert payloads received for this incident, repeats included' }),
    paged: Type.Union([Type.Object({ actionId: Type.String() }), Type.Null()]),
    chat: Type.Union([Type.Object({ channel: Type.String(), connectorId: Nullable(Type.String()) }), Type.Null()]),
    postmortem: Type.Union([Postmortem, Type.Null()]),
    startedAt: Nullable(Type.String()),
    acknowledgedAt: Nullable(Type.String()),
    mitigatedAt: Nullable(Type.String()),
    resolvedAt: Nullable(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { $id: 'Incident' },
);
export const IncidentDetail = Type.Object(
  {
    ...IncidentView.properties,
    timeline: Type.Array(TimelineEntry),
    runIds: Type.Array(Type.String()),
  },
  { $id: 'IncidentDetail' },
);

export const IncidentOne = Type.Object({ ok: Type.Literal(true), incident: IncidentDetail }, { $id: 'IncidentAnswer' });
export const IncidentList = Page('incidents', IncidentView, 'IncidentList');
export const IncidentRespondAnswer = Type.Object(
  {
    ...IncidentReport.properties,
    created: Type.Boolean({ description: 'A new incident was opened (false: the open one of this fingerprint)' }),
    record: IncidentDetail,
  },
  { $id: 'IncidentRespondAnswer' },
);
