import type { Db } from './knex.js';

export type MailStatus = 'queued' | 'stored' | 'sent' | 'failed';

export async function insertMail(
  db: Db,
  row: { id: string; accountId: string; to: string; subject: string; text: string },
): Promise<void> {
  await db('outbound_mails').insert({
    id: row.id,
    account_id: row.accountId,
    to_address: row.to,
    subject: row.subject,
    text_body: row.text,
    status: 'queued',
  });
}

/**
 * Sets a mail's status; with `dropBody` its body (which can hold an
 * activation token) is replaced by its SHA-256 in the same statement.
 */
export async function settleMail(
  db: Db,
  id: string,
  status: MailStatus,
  opts: { dropBody: boolean; error?: string },
): Promise<void> {
  await db('outbound_mails')
    .where({ id })
    .update({
      status,
      ...(opts.error !== undefined ? { error: opts.error } : {}),
      ...(opts.dropBody
        ? {
            body_sha256: db.raw(`coalesce(encode(sha256(convert_to(text_body, 'UTF8')), 'hex'), body_sha256)`),
            text_body: null,
          }
        : {}),
    });
}
