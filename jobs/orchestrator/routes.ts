import { followRun } from './follow.js';
import { submitRun } from './submit.js';
import { OrchestratorRequest, OrchestratorResult, RunAccepted } from './schemas.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';
import { answerRun } from './run-answer.js';

const r = routeGroup('orchestrator', { read: ['runs:read'], write: ['runs:write'] });

export const routes = [
  r.post('/v1/orchestrator/run', 'Route a request across domains and run it', {
    description:
      'Default: waits until the run rests (RUN_SYNC_WAIT_MS) and answers the result, else 202 with links. ' +
      '`Prefer: respond-async` answers 202 at once. `stream: true` answers application/x-ndjson events until ' +
      '`final`. A follow-up with conversationId + itemId + action resumes the waiting run. A conversationId ' +
      'starting with sandbox_ needs no token.',
    auth: 'sandboxOrBearer',
    body: OrchestratorRequest,
    response: { 200: OrchestratorResult, 202: RunAccepted },
    countsAsWorkflow: true,
    mcpTool: 'orchestrator.run',
    handler: async ({ body, principal, headers, signal }, deps) => {
      const run = await submitRun(deps, principal, body);
      if (body.stream)
        return Reply.stream(followRun(deps, run.id, 0, 'ndjson', signal), 'application/x-ndjson', {
          'X-Run-Id': run.id,
        });
      return answerRun(deps, run, headers.prefer, signal);
    },
  }),
];
