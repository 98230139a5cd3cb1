import { AutonomousRequest } from '../../shared/schemas/orchestrator.js';
import { CicdPlan, DeliveryResume, DeliveryRun, EnvironmentConfigure, IncidentRespond, KubernetesRepair, MigrationValidate } from '../../shared/schemas/dev-delivery.js';
import { routeGroup } from '../../shared/http/route-group.js';

const r = routeGroup('workflows', { read: ['tools:use'], write: ['tools:use'] });
const work = { countsAsWorkflow: true };

export const routes = [
  r.post('/v1/environment/configure', 'Detect runtimes, services, secrets and setup steps; executes no commands', { ...work, body: EnvironmentConfigure, domain: 'environment', mcpTool: 'environment.configure' }),
  r.post('/v1/cicd/plan', 'Release plan with gates, steps and rollback', { ...work, body: CicdPlan, domain: 'cicd', mcpTool: 'cicd.plan' }),
  r.post('/v1/kubernetes/repair', 'Findings and approval-gated remediations; never mutates a live cluster', { ...work, body: KubernetesRepair, domain: 'kubernetes', mcpTool: 'kubernetes.repair' }),
  r.post('/v1/incident/respond', 'Incident, actions, approvals and timeline; mutating responses are approval-gated', { ...work, body: IncidentRespond, domain: 'incident', mcpTool: 'incident.respond' }),
  r.post('/v1/database/migration/validate', 'Validate migrations with the real Postgres parser; runs nothing', { ...work, body: MigrationValidate, domain: 'migration', mcpTool: 'migration.validate' }),
  r.post('/v1/delivery/run', 'Configure, validate, deploy, monitor, repair; prod pauses at the deploy gate', { ...work, body: DeliveryRun, domain: 'delivery', scopes: ['delivery:write'] }),
  r.post('/v1/delivery/runs/{runId}/resume', 'Approve or refuse a delivery run at its gate', { body: DeliveryResume, domain: 'delivery', scopes: ['delivery:write'] }),
  r.post('/v1/orchestrator/autonomous', 'Run delivery or environment work under an explicit autonomy grant (fail-closed)', { ...work, body: AutonomousRequest, tag: 'orchestrator', scopes: ['delivery:write'] }),
];
