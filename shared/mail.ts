import type { Deps } from './deps.js';
import { insertMail, settleMail } from './db/mails.js';
import { newId } from './ids.js';

export interface Mail {
  accountId: string;
  to: string;
  subject: string;
  text: string;
}

/**
 * Records a mail in `outbound_mails` and, when `SMTP_URL` is set, sends it.
 * The body (it can hold an activation token) is kept only while sending
 * needs it: a sent mail keeps its SHA-256 instead at once; an unsent one
 * (`stored` without SMTP, or `failed`) keeps it for MAIL_BODY_RETENTION_HOURS
 * so an operator can pass it on, after which the clock hashes it (0: at once).
 * Log lines never carry the body.
 */
export async function sendMail(
  deps: Pick<Deps, 'db' | 'config' | 'log'>,
  mail: Mail,
): Promise<'smtp' | 'stored' | 'failed'> {
  const id = newId('mail');
  const keepUnsent = deps.config.MAIL_BODY_RETENTION_HOURS > 0;
  await insertMail(deps.db, { id, ...mail });
  if (!deps.config.SMTP_URL) {
    await settleMail(deps.db, id, 'stored', { dropBody: !keepUnsent });
    deps.log.info(
      { mailId: id, to: mail.to, subject: mail.subject },
      'mail not sent (no SMTP_URL): kept in outbound_mails',
    );
    return 'stored';
  }
  try {
    // Loaded on the first mail (about 15 MB): a process that sends none never holds it.
    const { default: nodemailer } = await import('nodemailer');
    const transport = nodemailer.createTransport(deps.config.SMTP_URL);
    await transport.sendMail({ from: deps.config.MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text });
    await settleMail(deps.db, id, 'sent', { dropBody: true });
    return 'smtp';
  } catch (err) {
    // The account exists either way; the stored row lets an operator resend.
    await settleMail(deps.db, id, 'failed', { dropBody: !keepUnsent, error: (err as Error).message.slice(0, 500) });
    deps.log.warn({ mailId: id, err: (err as Error).message }, 'activation mail could not be sent');
    return 'failed';
  }
}
