import { STRATEGIES } from '../../shared/schemas/dev-delivery.js';
import type { StepHandler } from '../step.js';
import { stringRecord, text } from '../../shared/step-inputs.js';
import { planRelease, type Strategy } from './logic.js';

/**
 * The cicd step plans the release the run's metadata describes (service,
 * environment, version, strategy, artifacts). What is missing is reported as
 * missing (a gate not given blocks), never filled in.
 */
export const cicdStep: StepHandler = async (input) => {
  const m = input.metadata;
  const strategy = STRATEGIES.find((s) => s === m.strategy) as Strategy | undefined;
  const service = text(m.service) ?? 'service';
  const environment = text(m.environment) ?? 'staging';
  const version = text(m.version) ?? 'unversioned';
  const plan = planRelease({
    service,
    environment,
    version,
    strategy,
    artifacts: stringRecord(m.artifacts),
    previousVersion: text(m.previousVersion),
  });
  const missing = [...(text(m.service) ? [] : ['service']), ...(text(m.version) ? [] : ['version'])];
  return {
    output: { service, environment, version, ...plan },
    evidence: plan.gates
      .filter((g) => g.status !== 'missing')
      .map((g) => ({ claim: `${g.gate} gate is ${g.status}`, source: 'run metadata artifacts', sourceBound: true })),
    conversation: [
      `Release plan for ${service}@${version} to ${environment} (${plan.strategy}): ` +
        `${plan.verdict}${plan.reasons.length ? ` — ${plan.reasons.join('; ')}` : ''}.`,
    ],
    openQuestions: [
      ...missing.map((f) => `The request names no ${f}.`),
      ...(plan.verdict === 'ready' ? [] : plan.reasons),
    ],
  };
};
