import { Type } from '@sinclair/typebox';
import { AnyObject, Ok } from '../../shared/schemas/common.js';

const Name = (description: string) =>
  Type.String({ pattern: '^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$', maxLength: 253, description });

/** A live repair run: the cluster by its vault credential, the workload by namespace and Deployment name. */
export const KubernetesRunRequest = Type.Object(
  {
    credential: Type.String({
      pattern: '^cred:[A-Za-z0-9][A-Za-z0-9._-]{0,99}(@\\d+)?$',
      description:
        'cred:NAME of the vault credential holding a kubeconfig, or JSON {server, token, certificateAuthorityData}',
    }),
    namespace: Name('Namespace of the workload'),
    deployment: Name('The Deployment to read and repair'),
    environment: Type.Optional(
      Type.String({ maxLength: 50, description: 'Environment an autonomy grant must cover (default staging)' }),
    ),
    grantId: Type.Optional(
      Type.String({ maxLength: 100, description: 'An autonomy grant covering kubernetes.patch: no person is asked' }),
    ),
  },
  { $id: 'KubernetesRunRequest', additionalProperties: false },
);

export const KubernetesRunAnswer = Ok(
  {
    runId: Type.String(),
    status: Type.String({ description: 'awaitingApproval, awaitingRollout, repaired, rolledBack, blocked, …' }),
    repair: Type.Union([AnyObject, Type.Null()], {
      description: 'The step output: findings, the proposed change, its dry run, the rollout',
    }),
    error: Type.Optional(Type.String({ description: "Why a failed run failed (the cluster's refusal, in words)" })),
    links: Type.Optional(AnyObject),
  },
  'KubernetesRunAnswer',
);
