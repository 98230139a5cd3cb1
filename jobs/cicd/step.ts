import { STRATEGIES } from '../../shared/schemas/dev-delivery.js';
import type { StepHandler } from '../step.js';
import { stringRecord, text } from '../../shared/step-inputs.js';
import { releasePlanFor } from './gates.js';
import type { Strategy } from './logic.js';

/**
 * The cicd step plans the release the run's metadata describes (service,
 * environment, version, strategy, artifacts). What is missing is reported as
 * missing (a gate not given blocks), never filled in. With `ci.repo` and a
 * GitHub connector, the gates are read from the commit (gates.ts) and the
 * caller's statuses for them are ignored, as the answer says.
 */
export const cicdStep: StepHandler = async (input, deps) => {
  const m = input.metadata;
  const strategy = STRATEGIES.find((s) => s === m.strategy) as Strategy | undefined;
  const service = text(m.service) ?? 'service';
  const environment = text(m.environment) ?? 'staging';
  const version = text(m.version) ?? 'unversioned';
  const { gateSource, ...plan } = await releasePlanFor(deps, input.accountId, {
    service,
    environment,
    version,
    strategy,
    artifacts: stringRecord(m.artifacts),
    previousVersion: text(m.previousVersion),
    ci: m.ci && typeof m.ci === 'object' ? (m.ci as Record<string, unknown>) : undefined,
  });
  const from = gateSource
    ? `github ${gateSource.repo}@${gateSource.sha ?? gateSource.ref} (connector ${gateSource.connectorId})`
    : 'run metadata artifacts';
  const missing = [...(text(m.service) ? [] : ['service']), ...(text(m.version) ? [] : ['version'])];
  return {
    output: { service, environment, version, ...plan, ...(gateSource ? { gateSource } : {}) },
    evidence: plan.gates
      .filter((g) => g.status !== 'missing')
      .map((g) => ({
        claim: `${g.gate} gate is ${g.status}`,
        source: g.gate === 'health' || !gateSource ? 'run metadata artifacts' : from,
        sourceBound: true,
      })),
    conversation: [
      ...(gateSource
        ? [
            `Gates read from ${from}` +
              `${gateSource.ignored.length ? `; the caller's ${gateSource.ignored.join(', ')} ignored` : ''}` +
              `${gateSource.error ? `; ${gateSource.error}` : ''}.`,
          ]
        : []),
      `Release plan for ${service}@${version} to ${environment} (${plan.strategy}): ` +
        `${plan.verdict}${plan.reasons.length ? ` — ${plan.reasons.join('; ')}` : ''}.`,
    ],
    openQuestions: [
      ...(gateSource?.error ? [gateSource.error] : []),
      ...missing.map((f) => `The request names no ${f}.`),
      ...(plan.verdict === 'ready' ? [] : plan.reasons),
    ],
  };
};
