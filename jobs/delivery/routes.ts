import { resumeDelivery, startAutonomous, startDelivery } from './runs-service.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { AutonomousAnswer, DeliveryAnswer } from '../../shared/schemas/delivery-ops.js';
import { DeliveryResume, DeliveryRun } from '../../shared/schemas/dev-delivery.js';
import { AutonomousRequest } from '../../shared/schemas/orchestrator.js';

/**
 * Delivery's run routes start and resume runs through the engine; in the
 * OpenAPI document they are tagged with the other run-starting routes (workflows).
 */
const r = routeGroup('workflows', { read: ['delivery:write'], write: ['delivery:write'], domain: 'delivery' });

export const routes = [
  r.post('/v1/delivery/run', 'Configure, validate, deploy, monitor, repair; prod pauses at the deploy gate', {
    description:
      'Starts a run through the engine (environment → [migration, security] → cicd → delivery) and answers ' +
      'once it rests (RUN_SYNC_WAIT_MS, else 202): `staging` ends `delivered` or `blocked`; `prod` rests at ' +
      'the deploy gate as `awaitingApproval`. Without a CI connector (capability `ci.trigger`) the deploy ' +
      'stage is a `dry run` and says so. `pods`, `events`, `alerts` and `signals`, when given, are what the ' +
      'monitor stage checks. The same fields are in GET /v1/runs/{runId}.',
    countsAsWorkflow: true,
    body: DeliveryRun,
    response: { 200: DeliveryAnswer, 202: DeliveryAnswer },
    mcpTool: 'delivery.run',
    handler: ({ body, principal }, deps) => startDelivery(deps, principal, body),
  }),
  r.post('/v1/delivery/runs/{runId}/resume', 'Approve or refuse a delivery run at its gate', {
    description:
      '`approved: true` continues to `delivered` (or `blocked` when monitoring finds a problem), `false` ' +
      'ends the run `blocked`. A gate answers once: a second resume is 409. The approver is a member holding ' +
      "approvals:write other than the run's submitter (409 selfApproval), unless the account's approval " +
      'policy allows self-approval of `deploy` (or `autonomy`). A run that is not a delivery run, or another ' +
      "account's, is 404.",
    body: DeliveryResume,
    response: { 200: DeliveryAnswer, 202: DeliveryAnswer },
    mcpTool: 'delivery.resume',
    scopes: ['approvals:write'],
    handler: ({ params, body, principal }, deps) => resumeDelivery(deps, principal, params.runId, body.approved),
  }),
  r.post(
    '/v1/orchestrator/autonomous',
    'Run delivery or environment work under an explicit autonomy grant (fail-closed)',
    {
      description:
        '`mode` `delivery` (the fields of POST /v1/delivery/run) or `environment` (`files`), inferred when ' +
        "absent. The actions (delivery: configure, validate, deploy, monitor; environment: the setup steps' " +
        'actions) must each be in `allowedActions`, not in `requireApproval`, within `maxActions` (default ' +
        '5), and commands need `allowCommands`; otherwise the run rests at `awaitingApproval` listing ' +
        '`needsGrant`. Granted runs end `delivered`, as a dry run unless a CI connector deploys live.',
      countsAsWorkflow: true,
      body: AutonomousRequest,
      response: { 200: AutonomousAnswer, 202: AutonomousAnswer },
      tag: 'orchestrator',
      mcpTool: 'orchestrator.autonomous',
      handler: ({ body, principal }, deps) => startAutonomous(deps, principal, body),
    },
  ),
];
