import type { SecretLintRuleCreator, SecretLintSourceCode } from '@secretlint/types';
import { isPlaceholder, isReferenceValue, looksSecret } from './logic.js';

/**
 * Rules secretlint's recommended preset does not carry, written as secretlint
 * rules so they run in the same engine (and honour its disable comments):
 * Stripe secret keys, JSON Web Tokens (checked by decoding, not by shape
 * alone) and the generic high-entropy assignment. Their messages never hold
 * the value: the scanner builds its own from the range.
 */

const STRIPE = /\b(?:sk|rk)_(live|test)_[0-9A-Za-z]{20,247}\b/g;
const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{16,}/g;
// A key whose name says it holds a secret, then = : => or :=, then the value (quoted or bare).
const ASSIGNMENT = /([A-Za-z0-9_.-]*(?:secret|token|passw(?:or)?d|passwd|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|credential|auth[_-]?key|signing[_-]?key|encryption[_-]?key)[A-Za-z0-9_.-]*)["']?\s*(?:=>|:=|=|:)\s*(["'`]?)([^\s"'`,;]{8,})\2/gi;

function scanner(id: string, messageId: string, find: (source: SecretLintSourceCode, report: (start: number, end: number, data?: Record<string, string>) => void) => void): SecretLintRuleCreator {
  // The props become the result message's `data` (how a rule passes the variant or a suppression to the scanner); the text names no value.
  const messages = { [messageId]: { en: (_props: Record<string, string>) => `found ${messageId}`, ja: (_props: Record<string, string>) => `found ${messageId}` } };
  return {
    messages,
    meta: { id, recommended: true, type: 'scanner', supportedContentTypes: ['text'] },
    create(context) {
      const t = context.createTranslator(messages);
      return {
        file(source) {
          find(source, (start, end, data) => context.report({ message: t(messageId, data ?? {}), range: [start, end] }));
        },
      };
    },
  };
}

export const stripeRule = scanner('awp/stripe', 'STRIPE_SECRET_KEY', (source, report) => {
  for (const m of source.content.matchAll(STRIPE)) report(m.index, m.index + m[0].length, { variant: m[1] === 'live' ? 'live' : 'test' });
});

function decodePart(part: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** A token only when its header decodes to JSON naming an algorithm and its payload to a JSON object; an `exp` in the past marks it expired. */
export const jwtRule = scanner('awp/jwt', 'JWT', (source, report) => {
  for (const m of source.content.matchAll(JWT)) {
    const [header, payload] = m[0].split('.');
    const h = decodePart(header!);
    const p = decodePart(payload!);
    if (!h || typeof h.alg !== 'string' || !p) continue;
    const expired = typeof p.exp === 'number' && p.exp * 1000 < Date.now();
    report(m.index, m.index + m[0].length, { variant: expired ? 'expired' : 'live' });
  }
});

export const genericRule = scanner('awp/generic-high-entropy', 'HIGH_ENTROPY_ASSIGNMENT', (source, report) => {
  for (const m of source.content.matchAll(ASSIGNMENT)) {
    const value = m[3]!;
    const start = m.index + m[0].lastIndexOf(value);
    // References and placeholders are reported as such, so the scanner can count what it did not report.
    const suppress = isReferenceValue(value) ? 'reference' : isPlaceholder(value) ? 'placeholder' : null;
    if (!suppress && !looksSecret(value)) continue;
    report(start, start + value.length, { key: m[1]!, ...(suppress ? { suppress } : {}) });
  }
});

export const OWN_RULES = [stripeRule, jwtRule, genericRule];
