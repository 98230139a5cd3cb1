import type { Knex } from 'knex';
import type { StoredScope } from './connector-schemas.js';
import type { Db } from '../../shared/db/knex.js';
import { page } from '../../shared/db/page.js';

/** What the last preflight of a connector found (kept so the listing can show it). */
export interface LastPreflight {
  at: string;
  action: string;
  resource: string | null;
  status: string;
}

export interface ConnectorRow {
  id: string;
  account_id: string;
  connector_id: string;
  kind: string;
  caps: string[];
  endpoint: string;
  /** A reference (`cred:NAME`, or `env:NAME` on a platform connector) and how it is presented; never a value. */
  credential: { type: string; tokenRef: string } | null;
  scopes: StoredScope[];
  status: string;
  status_reason: string | null;
  template_id: string | null;
  last_preflight: LastPreflight | null;
  /**
   * Standard Webhooks secret (`whsec_…`) shared with the provider, stored sealed (shared/vault): signs what bridge
   * actions send, verifies its callbacks. Never returned.
   */
  signing_secret: string | null;
  /** Registered by an operator for every account; the only connectors whose references may be env:. */
  platform: boolean;
  /** `required`, or `unsigned` (development only): whether callbacks without a secret to check them are accepted. */
  callback_signing: 'required' | 'unsigned';
  created_at: Date;
  updated_at: Date;
}

export type NewConnector = Pick<
  ConnectorRow,
  'id' | 'account_id' | 'connector_id' | 'kind' | 'caps' | 'endpoint' | 'credential' | 'scopes' | 'template_id'
> & { signing_secret?: string | null; platform?: boolean; callback_signing?: ConnectorRow['callback_signing'] };

/** The account's own connectors and the platform ones. */
const visibleTo = (accountId: string) => (q: Knex.QueryBuilder) => {
  q.where({ account_id: accountId }).orWhere({ platform: true });
};

/** Fields an update may write; absent ones stay as they are. */
export interface ConnectorChange {
  status?: string;
  statusReason?: string | null;
  scopes?: StoredScope[];
  credential?: ConnectorRow['credential'];
  endpoint?: string;
  lastPreflight?: LastPreflight;
  signingSecret?: string | null;
  callbackSigning?: ConnectorRow['callback_signing'];
}

const json = (v: unknown) => (v == null ? null : JSON.stringify(v));

/** The account's connector, else a platform connector of that id (the account's own wins a shared id). */
export async function getConnector(
  db: Db,
  accountId: string,
  connectorId: string,
  forUpdate = false,
): Promise<ConnectorRow | null> {
  const q = db('connectors')
    .where({ connector_id: connectorId })
    .andWhere(visibleTo(accountId))
    .orderByRaw('(account_id = ?) DESC', [accountId])
    .first();
  if (forUpdate) q.forUpdate();
  return (await q) ?? null;
}

/** Inserts a connector; null when the account already has one with that `connector_id`. */
export async function insertConnector(db: Db, row: NewConnector): Promise<ConnectorRow | null> {
  const [created] = await db('connectors')
    .insert({ ...row, credential: json(row.credential), scopes: JSON.stringify(row.scopes) })
    .onConflict(['account_id', 'connector_id'])
    .ignore()
    .returning('*');
  return created ?? null;
}

export async function listConnectors(
  db: Knex,
  accountId: string,
  limit: number,
  cursor?: string,
): Promise<{ rows: ConnectorRow[]; nextCursor: string | null }> {
  return page<ConnectorRow>(db('connectors').where(visibleTo(accountId)), limit, cursor);
}

/**
 * The account's connectors that have `capability`, newest first (an account holds tens of connectors, not thousands).
 */
export async function connectorsWithCapability(
  db: Db,
  accountId: string,
  capability: string,
  limit: number,
): Promise<ConnectorRow[]> {
  return db('connectors')
    .where(visibleTo(accountId))
    .whereRaw('? = ANY(caps)', [capability])
    .orderBy('id', 'desc')
    .limit(limit);
}

export async function updateConnector(db: Db, id: string, change: ConnectorChange): Promise<ConnectorRow> {
  const patch: Record<string, unknown> = { updated_at: db.fn.now() };
  if (change.status !== undefined) patch.status = change.status;
  if (change.statusReason !== undefined) patch.status_reason = change.statusReason;
  if (change.scopes !== undefined) patch.scopes = JSON.stringify(change.scopes);
  if (change.credential !== undefined) patch.credential = json(change.credential);
  if (change.endpoint !== undefined) patch.endpoint = change.endpoint;
  if (change.signingSecret !== undefined) patch.signing_secret = change.signingSecret;
  if (change.callbackSigning !== undefined) patch.callback_signing = change.callbackSigning;
  if (change.lastPreflight !== undefined) patch.last_preflight = JSON.stringify(change.lastPreflight);
  const [row] = await db('connectors').where({ id }).update(patch).returning('*');
  return row;
}

/** Deletes a connector of the account (its sessions go with it); the number of rows deleted. */
export async function deleteConnector(db: Db, accountId: string, connectorId: string): Promise<number> {
  return db('connectors').where({ account_id: accountId, connector_id: connectorId }).delete();
}

/** A connector by its key (an action keeps the key of the connector it was made for). */
export async function getConnectorByPk(db: Db, id: string): Promise<ConnectorRow | null> {
  return (await db('connectors').where({ id }).first()) ?? null;
}
