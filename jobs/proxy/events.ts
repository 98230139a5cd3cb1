import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../shared/schemas/common.js';
import { MISSION_STATUSES, PROXY_OUTCOME_STATUSES } from './schemas.js';
import type { DomainEvent } from '../domain.js';

const missionRefs = {
  proxyId: Type.String(),
  taskId: Type.String(),
  runId: Type.Optional(Type.String({ description: 'The run that waited on the mission, when there is one' })),
};

/** The proxy domain's outbox events (jobs/events/registry.ts lists them; OpenAPI shows them as webhooks). */
export const events: Record<string, DomainEvent> = {
  'proxy.outcome': {
    description:
      'A proxy mission received its outcome (POST /v1/proxy/missions/{proxyId}/outcome, /v1/proxy/outcomes, ' +
      'or a proxyOutcome resume)',
    payload: Type.Object(
      {
        ...missionRefs,
        status: StringEnum(PROXY_OUTCOME_STATUSES, { description: 'The outcome' }),
        missionStatus: StringEnum(MISSION_STATUSES, { description: 'Where the outcome left the mission' }),
        verifiedProviderId: Type.Optional(
          Type.String({ description: 'The provider the outcome verified in the provider book' }),
        ),
      },
      { $id: 'ProxyOutcomePayload' },
    ),
  },
  'proxy.expired': {
    description: 'A proxy mission got no outcome within PROXY_MISSION_TTL_HOURS; the clock expired it',
    payload: Type.Object(
      { ...missionRefs, expiresAt: Type.String({ format: 'date-time' }) },
      { $id: 'ProxyExpiredPayload' },
    ),
  },
  'proxy.canceled': {
    description: 'A proxy mission was canceled by the client, or because the run that waited on it ended',
    payload: Type.Object({ ...missionRefs, reason: Type.String() }, { $id: 'ProxyCanceledPayload' }),
  },
};
