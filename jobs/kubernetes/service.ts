import type { Static } from '@sinclair/typebox';
import type { Deps } from '../../shared/deps.js';
import { Reply } from '../../shared/http/route-spec.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { referenceStates, unavailable } from '../credentials/index.js';
import { runLinks, submitRun, waitForRest } from '../orchestrator/index.js';
import type { KubernetesRunRequest } from './schemas.js';

type Obj = Record<string, any>;

const view = (r: Obj) => ({
  ok: true,
  runId: r.runId as string,
  status: r.status as string,
  repair: (r.results?.kubernetes as Obj | undefined) ?? null,
  ...(r.error ? { error: r.error as string } : {}),
  ...(r.links ? { links: r.links } : {}),
});

/**
 * Starts a live repair run on the workload (repair-step.ts) and answers once it rests (RUN_SYNC_WAIT_MS), else 202.
 * The credential is checked up front in the caller's vault (another account's reads as missing, the same 422).
 */
export async function startRepair(deps: Deps, principal: Principal, body: Static<typeof KubernetesRunRequest>) {
  const [state] = await referenceStates(deps, { accountId: principal.accountId, allowEnv: false }, [body.credential]);
  if (!state?.set) throw unavailable(body.credential);
  const run = await submitRun(deps, principal, {
    request: `repair deployment ${body.namespace}/${body.deployment} in the cluster`,
    domainRoute: ['kubernetes'],
    metadata: {
      cluster: { credential: body.credential, namespace: body.namespace, deployment: body.deployment },
      environment: body.environment ?? 'staging',
      ...(body.grantId ? { autonomyGrantId: body.grantId } : {}),
    },
  });
  const rested = (await waitForRest(deps, run.id, deps.config.RUN_SYNC_WAIT_MS, run.segment).catch(
    () => null,
  )) as Obj | null;
  if (rested) return view(rested);
  const links = runLinks(run.id);
  return new Reply(202, view({ runId: run.id, status: run.status, links }), { Location: links.self });
}
