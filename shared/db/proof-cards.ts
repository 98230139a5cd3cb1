import type { Db, Knex } from './knex.js';

export interface ProofCardRow {
  id: string;
  account_id: string;
  run_id: string;
  decision_id: string;
  card: Record<string, any>;
  decision: Record<string, any>;
}

export async function getProofCard(db: Db, accountId: string, cardId: string): Promise<ProofCardRow | null> {
  return (await db('proof_cards').where({ id: cardId, account_id: accountId }).first()) ?? null;
}

/** The card of the run's latest rest, if it ever rested with one. */
export async function latestProofCardOfRun(db: Db, runId: string): Promise<ProofCardRow | null> {
  return (await db('proof_cards').where({ run_id: runId }).orderBy('id', 'desc').first()) ?? null;
}

/**
 * The proof cards of the runs `runIds` selects (id, created_at, run_id), as a subquery a module's timeline composes
 * (jobs/resolve/cases/timeline-repository.ts).
 */
export function proofCardsOfRuns(db: Db, runIds: Knex.QueryBuilder) {
  return db('proof_cards').whereIn('run_id', runIds).select('id', 'created_at', 'run_id');
}
