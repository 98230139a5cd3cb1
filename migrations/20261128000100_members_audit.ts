import type { Knex } from 'knex';

/**
 * Issue 26, the foundation of trust: account members with roles, tokens and
 * dashboard sessions that belong to a member, runs that remember who
 * submitted them and with which scopes, and an append-only audit log.
 *
 * Every account has an owner member from the moment it exists: a trigger on
 * `accounts` creates it (copying the profile's email, name and password), so
 * no path that creates an account — sign-up, sandbox, an operator script —
 * can leave one without an owner. Existing accounts get theirs here, and
 * their tokens and sessions are given to it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('members', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('name').notNullable();
    t.text('role').notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.text('password_hash');
    t.text('activation_hash').unique();
    t.text('invited_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('activated_at', { useTz: true });
    t.timestamp('disabled_at', { useTz: true });
  });
  await knex.raw('CREATE UNIQUE INDEX members_account_email ON members (account_id, lower(email))');
  await knex.raw('CREATE INDEX members_email ON members (lower(email))');
  await knex.raw(
    "ALTER TABLE members ADD CONSTRAINT members_role CHECK (role IN ('owner','admin','approver','developer','viewer'))",
  );
  await knex.raw("ALTER TABLE members ADD CONSTRAINT members_status CHECK (status IN ('invited','active','disabled'))");

  await knex.raw(`
    CREATE FUNCTION awp_account_owner() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO members (id, account_id, email, name, role, status, password_hash, activated_at)
      VALUES ('mem_' || replace(gen_random_uuid()::text, '-', ''), NEW.id, NEW.email, NEW.name, 'owner', 'active',
              NEW.password_hash, now());
      RETURN NEW;
    END $$`);
  await knex.raw(
    'CREATE TRIGGER accounts_owner AFTER INSERT ON accounts FOR EACH ROW EXECUTE FUNCTION awp_account_owner()',
  );
  await knex.raw(`
    INSERT INTO members (id, account_id, email, name, role, status, password_hash, activated_at, created_at)
    SELECT 'mem_' || replace(gen_random_uuid()::text, '-', ''), id, email, name, 'owner', 'active', password_hash,
           coalesce(activated_at, created_at), created_at
    FROM accounts`);

  for (const table of ['api_tokens', 'dashboard_sessions']) {
    await knex.schema.alterTable(table, (t) => {
      t.text('member_id').references('members.id').onDelete('CASCADE');
    });
    await knex.raw(
      `UPDATE ${table} x SET member_id = m.id FROM members m WHERE m.account_id = x.account_id AND m.role = 'owner'`,
    );
    await knex.raw(`ALTER TABLE ${table} ALTER COLUMN member_id SET NOT NULL`);
    await knex.raw(`CREATE INDEX ${table}_member ON ${table} (member_id)`);
  }
  // The power to approve was part of paying and deploying until now; tokens that held those keep it.
  await knex.raw(`UPDATE api_tokens SET scopes = array_append(scopes, 'approvals:write')
    WHERE (scopes && ARRAY['pay:write','delivery:write','admin']) AND NOT ('approvals:write' = ANY(scopes))`);
  await knex.raw(`UPDATE api_tokens SET scopes = array_append(scopes, 'members:manage')
    WHERE (scopes && ARRAY['tokens:manage','admin']) AND NOT ('members:manage' = ANY(scopes))`);

  // Who submitted a run and the scopes it was submitted with: the run acts within them, and approvals compare members.
  await knex.schema.alterTable('runs', (t) => {
    t.text('submitted_by');
    t.specificType('grant_scopes', 'text[]');
  });

  await knex.schema.createTable('audit_log', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('member_id');
    t.text('token_id');
    t.text('action').notNullable();
    t.text('resource_type').notNullable();
    t.text('resource_id');
    t.text('outcome').notNullable().defaultTo('ok');
    t.jsonb('details').notNullable().defaultTo('{}');
    t.index(['account_id', 'id']);
    t.index(['account_id', 'member_id', 'id']);
    t.index(['account_id', 'resource_type', 'resource_id']);
  });
  // Append-only: no row is changed, and none is removed unless its account is gone (the cascade of a deleted account).
  await knex.raw(`
    CREATE FUNCTION awp_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id) THEN RETURN OLD; END IF;
      RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'insufficient_privilege';
    END $$`);
  await knex.raw(`CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION awp_audit_append_only()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_log');
  await knex.raw('DROP FUNCTION IF EXISTS awp_audit_append_only()');
  await knex.schema.alterTable('runs', (t) => {
    t.dropColumn('submitted_by');
    t.dropColumn('grant_scopes');
  });
  for (const table of ['api_tokens', 'dashboard_sessions']) {
    await knex.schema.alterTable(table, (t) => t.dropColumn('member_id'));
  }
  await knex.raw('DROP TRIGGER IF EXISTS accounts_owner ON accounts');
  await knex.raw('DROP FUNCTION IF EXISTS awp_account_owner()');
  await knex.schema.dropTableIfExists('members');
}
