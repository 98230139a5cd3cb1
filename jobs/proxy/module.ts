/**
 * The proxy module's registration (its DomainModule): only the module lists (jobs/domains.ts,
 * jobs/modules.ts) import this file. Other modules use jobs/proxy/index.ts, its public face.
 */

import { Type } from '@sinclair/typebox';
import { defineDomain } from '../domain.js';
import { metadataOf, textOr } from '../workflows/index.js';
import { events } from './events.js';
import { sweepMissions } from './expiry.js';
import { routes, scopes } from './routes.js';
import { ProxyOutcome } from './schemas.js';
import { answerFromRun } from './service.js';
import { proxyStep } from './step.js';
import { vocabulary } from './vocabulary.js';

/** Human-in-the-loop missions: a run hands work to a person and continues with their outcome and proof. */
export const proxy = defineDomain({
  name: 'proxy',
  summary: 'Human-in-the-loop missions: a run rests at awaitingProxy until a person reports the outcome',
  scopes,
  routes,
  step: proxyStep,
  vocabulary,
  resumeActions: {
    proxyOutcome: {
      description:
        'The outcome of the mission the run waits on (in metadata.outcome, or data.outcome on ' +
        '/v1/runs/{runId}/resume), submitted as POST /v1/proxy/missions/{proxyId}/outcome would',
      answer: answerFromRun,
      input: Type.Object({ outcome: ProxyOutcome }, { additionalProperties: false }),
    },
  },
  events,
  sweeps: { 'proxy.expire': { cron: '* * * * *', run: sweepMissions } },
  redact: ['phone', 'voiceCall', 'channelMsg', 'selectedProvider', 'callbackRef'],
  templates: [
    {
      templateId: 'coordinateHumanProcess',
      domains: ['proxy'],
      description: 'Hand a step to a human through a proxy mission and resume with the outcome',
      input: Type.Object(
        {
          request: Type.String({ minLength: 1, maxLength: 4000 }),
          consentToCall: Type.Optional(
            Type.Boolean({ description: 'true allows a call mission; without it a message mission is offered' }),
          ),
        },
        { $id: 'CoordinateHumanProcessInput', additionalProperties: true },
      ),
      toRequest: (i) => ({
        request: textOr(i.request, 'coordinate a human step'),
        domainRoute: ['proxy'],
        metadata: metadataOf(i),
        ...(i.consentToCall === true ? { consentToCall: true } : {}),
      }),
    },
  ],
});
