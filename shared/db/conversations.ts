import type { Db } from './knex.js';

/** What the router and the resume path know about a conversation's last turn. */
export interface ConversationContext {
  route?: string[];
  status?: string;
  waiting?: string | null;
  lastRunId?: string;
}

export async function getConversation(
  db: Db,
  accountId: string,
  conversationId: string,
): Promise<{ id: string; last_run_id: string | null; context: ConversationContext } | null> {
  return (await db('conversations').where({ account_id: accountId, id: conversationId }).first()) ?? null;
}

/** Counts a turn and points the conversation at its newest run. */
export async function recordTurn(trx: Db, accountId: string, conversationId: string, runId: string): Promise<void> {
  await trx('conversations')
    .insert({
      account_id: accountId,
      id: conversationId,
      last_run_id: runId,
      turns: 1,
      context: JSON.stringify({ lastRunId: runId }),
    })
    .onConflict(['account_id', 'id'])
    .merge({ last_run_id: runId, turns: trx.raw('conversations.turns + 1'), updated_at: trx.fn.now() });
}

/** Where the conversation's last run came to rest: the router reads it for follow-ups. */
export async function setConversationContext(
  trx: Db,
  accountId: string,
  conversationId: string,
  context: ConversationContext,
): Promise<void> {
  await trx('conversations')
    .where({ account_id: accountId, id: conversationId })
    .update({ context: JSON.stringify(context), updated_at: trx.fn.now() });
}
