import { domainModule } from '../module-registry.js';
import { checkBeforePay } from './logic.js';
import type { RouteExtension } from './waitpoint-resume.js';

/**
 * The route of the segment after a waitpoint. A resume action that names a
 * domain to continue into (`buy` → pay, `contact` → proxy) inserts it right
 * after the waiting step unless the route already goes there next (pay goes
 * after a check of the counterparty still to run: `checkBeforePay`); a domain
 * that is not available yet is not added, and the extension says so, so the
 * run ends with what it has instead of failing.
 */
export function extendRoute(
  route: string[],
  waitingIndex: number,
  waitingDomain: string,
  action: string | undefined,
  available: string[],
): { route: string[]; extension?: RouteExtension } {
  const target = action ? domainModule(waitingDomain)?.resumeActions?.[action]?.continueInto : undefined;
  if (!action || !target) return { route };
  if (route.slice(waitingIndex + 1).includes(target)) return { route };
  if (!available.includes(target)) {
    return {
      route,
      extension: {
        after: waitingDomain,
        action,
        added: null,
        reason: `${action} continues into ${target}, which is not available yet`,
      },
    };
  }
  const rest = checkBeforePay([target, ...route.slice(waitingIndex + 1)], (d) => d);
  const next = [...route.slice(0, waitingIndex + 1), ...rest];
  return {
    route: next,
    extension: {
      after: waitingDomain,
      action,
      added: target,
      reason: `${action} after ${waitingDomain} continues into ${target}`,
    },
  };
}
