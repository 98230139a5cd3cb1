import type { SecretLintRuleCreator, SecretLintSourceCode } from '@secretlint/types';
import { GENERIC_RULE_ID, isPlaceholder, isReferenceValue, looksSecret } from './logic.js';

/**
 * Rules secretlint's recommended preset does not carry, written as secretlint
 * rules so they run in the same engine (and honour its disable comments):
 * Stripe secret keys, JSON Web Tokens (checked by decoding, not by shape
 * alone) and the generic high-entropy assignment; and the `scanner` helper
 * the provider key table (provider-keys.ts) is made with. Their messages
 * never hold the value: the scanner builds its own from the range.
 */

// Every pattern here runs over up to 1 MiB of untrusted text, so none may backtrack without bound: quantifiers are
// capped and each match can only start at the start of a token (test/unit/secret-scan.test.ts scans 1 MB files built
// against them).
const STRIPE = /\b(?:sk|rk)_(live|test|prod)_[0-9A-Za-z]{20,247}\b/g;
/** Runs of the characters a JWT is made of; each is then checked whole. */
const TOKEN_RUN = /[A-Za-z0-9_.-]+/g;
const JWT = /^(eyJ[A-Za-z0-9_-]{8,4000})\.(eyJ[A-Za-z0-9_-]{2,8000})\.[A-Za-z0-9_-]{16,2000}$/;
/** A key (a whole token of at most 80 characters), then = : => or :=, then the value (quoted or bare). */
const ASSIGNMENT =
  /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]{1,80})["']?[ \t]{0,10}(?:=>|:=|=|:)[ \t]{0,10}(["'`]?)([^\s"'`,;]{8,500})\2/g;
const SECRET_NAME = new RegExp(
  [
    String.raw`secret|token|passw(?:or)?d|passwd|pwd|api[_-]?key|apikey|access[_-]?key`,
    String.raw`|private[_-]?key|credential|auth[_-]?key|signing[_-]?key|encryption[_-]?key`,
  ].join(''),
  'i',
);

/**
 * A secretlint rule from a finder. Each message id is a kind of match; the data a finder passes becomes the result
 * message's `data` (how a rule passes the variant or a suppression to the scanner). No message text names a value.
 */
export function scanner(
  id: string,
  messageIds: readonly string[],
  find: (
    source: SecretLintSourceCode,
    report: (messageId: string, start: number, end: number, data?: Record<string, string>) => void,
  ) => void,
): SecretLintRuleCreator {
  const text = (messageId: string) => (_props: Record<string, string>) => `found ${messageId}`;
  const messages = Object.fromEntries(messageIds.map((m) => [m, { en: text(m), ja: text(m) }]));
  return {
    messages,
    meta: { id, recommended: true, type: 'scanner', supportedContentTypes: ['text'] },
    create(context) {
      const t = context.createTranslator(messages);
      return {
        file(source) {
          find(source, (messageId, start, end, data) =>
            context.report({ message: t(messageId, data ?? {}), range: [start, end] }),
          );
        },
      };
    },
  };
}

export const stripeRule = scanner('awp/stripe', ['STRIPE_SECRET_KEY'], (source, report) => {
  for (const m of source.content.matchAll(STRIPE))
    report('STRIPE_SECRET_KEY', m.index, m.index + m[0].length, { variant: m[1] === 'test' ? 'test' : 'live' });
});

function decodePart(part: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * Whether a string is a JSON Web Token: its header decodes to JSON naming an algorithm and its payload to a JSON
 * object;
 * an `exp` in the past makes it expired.
 */
export function jwtState(token: string): 'live' | 'expired' | null {
  const m = JWT.exec(token);
  if (!m) return null;
  const h = decodePart(m[1]!);
  const p = decodePart(m[2]!);
  if (!h || typeof h.alg !== 'string' || !p) return null;
  return typeof p.exp === 'number' && p.exp * 1000 < Date.now() ? 'expired' : 'live';
}

export const jwtRule = scanner('awp/jwt', ['JWT'], (source, report) => {
  for (const run of source.content.matchAll(TOKEN_RUN)) {
    if (!run[0].startsWith('eyJ')) continue;
    let end = run[0].length;
    while (end > 0 && run[0][end - 1] === '.') end -= 1; // a sentence's full stop after the token
    const state = jwtState(run[0].slice(0, end));
    if (state) report('JWT', run.index, run.index + end, { variant: state });
  }
});

export const genericRule = scanner(GENERIC_RULE_ID, ['HIGH_ENTROPY_ASSIGNMENT'], (source, report) => {
  for (const m of source.content.matchAll(ASSIGNMENT)) {
    if (!SECRET_NAME.test(m[1]!)) continue;
    const value = m[3]!;
    const start = m.index + m[0].lastIndexOf(value);
    // References and placeholders are reported as such, so the scanner can count what it did not report.
    const suppress = isReferenceValue(value) ? 'reference' : isPlaceholder(value) ? 'placeholder' : null;
    if (!suppress && !looksSecret(value)) continue;
    report('HIGH_ENTROPY_ASSIGNMENT', start, start + value.length, { key: m[1]!, ...(suppress ? { suppress } : {}) });
  }
});

export const OWN_RULES = [stripeRule, jwtRule, genericRule];
