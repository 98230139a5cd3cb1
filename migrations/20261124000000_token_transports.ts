import type { Knex } from 'knex';

/** Transports a token may be used over (a separate MCP or A2A token); existing tokens keep working everywhere. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE api_tokens ADD COLUMN IF NOT EXISTS transports text[] NOT NULL DEFAULT '{http,mcp,a2a}'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE api_tokens DROP COLUMN IF EXISTS transports');
}
