import type { Deps } from '../../shared/deps.js';
import { sendMail } from '../../shared/mail.js';

function invitationText(to: { name: string; role: string }, code: string, baseUrl: string, days: number): string {
  return [
    `Hello ${to.name},`,
    '',
    `You are invited to an awp account as ${to.role}. Your one-time invitation code (valid ${days} days):`,
    '',
    code,
    '',
    `Accept it with POST ${baseUrl}/v1/members/activate and`,
    '{"invitationCode": "<the code above>", "password": "<yours>"};',
    `then sign in to the dashboard at ${baseUrl}/ with this email address and that password.`,
    '',
  ].join('\n');
}

/** Sends (or stores, without SMTP) an invitation; the code is in the body only, never in a log line. */
export async function invitationMail(
  deps: Deps,
  to: { accountId: string; email: string; name: string; role: string },
  code: string,
  days: number,
) {
  const baseUrl = (deps.config.PUBLIC_BASE_URL ?? `http://localhost:${deps.config.PORT}`).replace(/\/+$/, '');
  return sendMail(deps, {
    accountId: to.accountId,
    to: to.email,
    subject: 'You are invited to an awp account',
    text: invitationText(to, code, baseUrl, days),
  });
}
