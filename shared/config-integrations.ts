// Waitpoints, proxy missions, secrets, connectors, bridges and the portal browser: config schema properties.
import { Type } from '@sinclair/typebox';

export const integrationConfig = {
  APPROVAL_WAITPOINT_TTL_HOURS: Type.Number({
    exclusiveMinimum: 0,
    default: 72,
    description:
      'Hours an approval waitpoint (awaitingApproval) stays open; then the clock fails it closed: the run ' +
      'rests `expired`',
  }),
  INPUT_WAITPOINT_TTL_HOURS: Type.Number({
    exclusiveMinimum: 0,
    default: 168,
    description: 'Hours a choice waitpoint (NEEDS_INPUT) stays open before the run rests `expired`',
  }),
  WAITPOINT_ESCALATE_BEFORE: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1,
    default: 0.25,
    description:
      "Fraction of a waitpoint's lifetime left when it escalates (a `waitpoint.escalated` event and a mail " +
      "to the account's approvers, or for a choice to the run's submitter)",
  }),
  PROXY_MISSION_TTL_HOURS: Type.Number({
    exclusiveMinimum: 0,
    default: 72,
    description:
      'Hours a proxy mission stays open for an outcome; then the clock expires it (and the run waiting on it ' +
      'resumes to report that)',
  }),
  SECRET_ENV_PREFIX: Type.String({
    pattern: '^[A-Za-z_][A-Za-z0-9_]{2,63}$',
    default: 'AWP_SECRET_',
    description: 'Only environment variables starting with this can be read through an `env:NAME` secret reference',
  }),
  CONNECTOR_PREFLIGHT_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 5000,
    description: 'Time limit of the endpoint check of a connector preflight (`checkEndpoint: true`)',
  }),
  CONNECTION_SESSION_MAX_HOURS: Type.Integer({
    minimum: 1,
    maximum: 8760,
    default: 720,
    description: 'Longest lifetime a connection session may be given (`expiresAt`); the default lifetime is one hour',
  }),
  BRIDGE_ACTION_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 15_000,
    description: 'Time limit of one call of a hosted bridge action (and of a connector hunt search)',
  }),
  BRIDGE_ACTION_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 20,
    default: 6,
    description: 'Calls a hosted bridge action gets before a transient failure (network, 429, 5xx) fails it',
  }),
  BRIDGE_ACTION_RETRY_BASE_MS: Type.Integer({
    minimum: 1,
    default: 2000,
    description:
      'Delay before the second call of a hosted bridge action; it doubles per attempt, and a longer Retry-After wins',
  }),
  BRIDGE_CLIENT_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 900_000,
    description: "How long a client-hosted bridge action waits for the client's update before it is timedOut",
  }),
  BRIDGE_PROVIDER_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    default: 259_200_000,
    description:
      'How long a bridge action a provider accepted without an outcome (awaitingProvider: an SMS queued, a payment ' +
      "processing) waits for the provider's callback before it is timedOut (`run` asks the provider again, with the " +
      'same idempotency key)',
  }),
  BRIDGE_STEP_WAIT_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 10_000,
    description:
      "How long a run's bridge step waits for its action inside the step; an action still under way then (retrying, " +
      "or a client-hosted one) rests the run at awaitingAction until the action's end resumes it",
  }),
  BROWSER_EXECUTABLE: Type.String({
    default: '/usr/bin/chromium',
    description:
      'Chromium the portal-actions worker drives (playwright-core) for POST /v1/tools/portalBrowser; missing: ' +
      'the request answers 422 (and a worker without it fails the action); nothing else needs it',
  }),
  PORTAL_STEP_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 10_000,
    description: "Time limit of one portal step (a step's own timeoutMs may lower it)",
  }),
  PORTAL_ACTION_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    maximum: 600_000,
    default: 90_000,
    description: 'Time limit of a whole portal action run, browser start included',
  }),
  KUBERNETES_ROLLOUT_CHECK_MS: Type.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 10_000,
    description:
      "How often a repair run resting at awaitingRollout has its Deployment's rollout read again (a delayed job on " +
      'the kubernetes-rollouts queue; the kubernetes.rollouts sweep re-drives one lost with Redis)',
  }),
  KUBERNETES_ROLLOUT_MAX_MS: Type.Integer({
    minimum: 1000,
    default: 3_600_000,
    description:
      'How long a rollout is watched when the Deployment never says it is done or past its progressDeadlineSeconds; ' +
      'then the run ends as a failed rollout (and is rolled back)',
  }),
  ENVIRONMENT_CLONE_MAX_BYTES: Type.Integer({
    minimum: 1024,
    default: 52_428_800,
    description:
      'Largest repository the environment domain clones (`repoUrl`, git clone --depth 1): the clone is killed and ' +
      'the step fails once its directory grows past it',
  }),
  ENVIRONMENT_CLONE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 60_000,
    description: 'Time limit of one repository clone (`repoUrl`); the git process is killed past it',
  }),
};
