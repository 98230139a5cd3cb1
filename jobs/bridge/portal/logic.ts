import { minimatch } from 'minimatch';
import type { PortalStep } from './schemas.js';
import { unsetMessage } from '../logic.js';

/** Pure rules of portals: scope, step validation, preflight verdicts. */

export interface PortalScope {
  origins: string[];
  paths: string[];
}
export type Credential = 'username' | 'password' | 'totp';
export const CREDENTIAL_FIELD: Record<Credential, 'usernameRef' | 'passwordRef' | 'totpSeedRef'> = {
  username: 'usernameRef',
  password: 'passwordRef',
  totp: 'totpSeedRef',
};

export interface PreflightError {
  check: 'credential' | 'mfa' | 'scope';
  message: string;
  ref?: string;
  variable?: string;
}
export type PreflightStatus = 'ready' | 'credentialsMissing' | 'mfaUnavailable' | 'outOfScope';

/** Whether a navigation to `url` stays within the scope: its origin listed, its path matching a glob. */
export function inScope(url: string, scope: PortalScope): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (!scope.origins.some((o) => new URL(o).origin === parsed.origin)) return false;
  return scope.paths.some(
    (glob) =>
      minimatch(parsed.pathname, glob, { dot: true }) ||
      (glob.endsWith('/**') && parsed.pathname === glob.slice(0, -3)),
  );
}

/**
 * A step's URL with its `{{input}}` placeholders filled (URI-encoded), resolved against the origin; null when an input
 * is missing.
 */
export function stepUrl(url: string, origin: string, inputs: Record<string, string>): string | null {
  let missing = false;
  const filled = url.replace(/\{\{([A-Za-z][A-Za-z0-9_]*)\}\}/g, (_m, name: string) => {
    if (inputs[name] === undefined) missing = true;
    return encodeURIComponent(inputs[name] ?? '');
  });
  if (missing) return null;
  try {
    return new URL(filled, origin).href;
  } catch {
    return null;
  }
}

/**
 * What is wrong with a step list before it is stored, each with its JSON
 * pointer: a fill with neither or both of credential and input, an input
 * not given, a credential the session holds no reference for, a navigation
 * that leaves the scope.
 */
export function stepProblems(
  steps: PortalStep[],
  ctx: {
    origin: string;
    scope: PortalScope;
    inputs: Record<string, string>;
    credentials: Partial<Record<Credential, string>>;
  },
): string[] {
  const problems: string[] = [];
  steps.forEach((step, i) => {
    const at = `/steps/${i}`;
    if (step.op === 'fill') {
      if ((step.credential === undefined) === (step.input === undefined))
        problems.push(`${at}: a fill takes exactly one of credential and input`);
      if (step.input !== undefined && ctx.inputs[step.input] === undefined)
        problems.push(`${at}: input ${step.input} is not given`);
      if (step.credential !== undefined && !ctx.credentials[step.credential])
        problems.push(`${at}: the session holds no ${CREDENTIAL_FIELD[step.credential]}`);
    }
    if (step.op === 'navigate') {
      const url = stepUrl(step.url, ctx.origin, ctx.inputs);
      if (!url) problems.push(`${at}/url: not a URL, or it names an input that is not given`);
      else if (!inScope(url, ctx.scope)) problems.push(`${at}/url: ${url} is outside the session's target scope`);
    }
  });
  return problems;
}

/** Inputs a template needs that were not given. */
export const missingInputs = (declared: Array<{ name: string; required: boolean }>, inputs: Record<string, string>) =>
  declared.filter((d) => d.required && inputs[d.name] === undefined).map((d) => d.name);

/**
 * A session's readiness from what the service found: each credential
 * reference set (unset ones named), the MFA method one the browser can meet
 * on its own (none, or totp with its seed set), the target within scope.
 */
export function preflightVerdict(input: {
  unset: Array<{ ref: string; variable: string; why?: string }>;
  mfaMethod: string;
  totpSeedSet: boolean;
  targetOrigin: string;
  scope: PortalScope;
}): { status: PreflightStatus; errors: PreflightError[] } {
  const errors: PreflightError[] = input.unset.map((u) => ({
    check: 'credential' as const,
    message: u.why ?? unsetMessage(u.ref),
    ref: u.ref,
    variable: u.variable,
  }));
  if (input.mfaMethod === 'totp' && !input.totpSeedSet)
    errors.push({ check: 'mfa', message: 'MFA is totp but no TOTP seed reference is set' });
  if (!['none', 'totp'].includes(input.mfaMethod))
    errors.push({ check: 'mfa', message: `MFA by ${input.mfaMethod} needs a person: the browser cannot receive it` });
  if (!inScope(new URL('/', input.targetOrigin).href, { ...input.scope, paths: ['/**'] }))
    errors.push({ check: 'scope', message: `the target ${input.targetOrigin} is not among the scope's origins` });
  const first = errors[0]?.check;
  const status: PreflightStatus = !first
    ? 'ready'
    : first === 'credential'
      ? 'credentialsMissing'
      : first === 'mfa'
        ? 'mfaUnavailable'
        : 'outOfScope';
  return { status, errors };
}
