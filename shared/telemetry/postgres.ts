import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_SUMMARY,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_DB_SYSTEM_NAME,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import { childSpan, failSpan, SpanKind, type Attributes } from './spans.js';

/** The statement a query sends, as knex hands it to its dialect. */
interface QueryObject {
  sql?: string;
  options?: { name?: string };
}

type PgClientClass = new (config: Knex.Config) => Knex.Client & {
  _query(connection: unknown, obj: QueryObject): Promise<unknown>;
};

// knex's own Postgres dialect (the class `client: 'pg'` names); knex ships no typings for the path.
const PgClient = createRequire(import.meta.url)('knex/lib/dialects/postgres/index.js') as PgClientClass;

const VERB = /^\s*(?:\/\*[\s\S]*?\*\/\s*)*([A-Za-z]+)/;
const TARGET = /\b(?:from|into|update|join)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?(?:\s|$|,|\))/i;

/**
 * The span attributes of a statement: the verb (`SELECT`, `INSERT`, `WITH`, `BEGIN`), the first table it names,
 * and for a prepared statement its name (shared/db/knex.ts `prepared`: `awp_begin_step`). Never the bindings, and
 * not the SQL text either: the service's statements put values in bindings, but a raw statement may still hold a
 * literal, and a name says as much as an operator needs.
 */
export function statementAttributes(obj: QueryObject): { name: string; attributes: Attributes } {
  const sql = obj.sql ?? '';
  const verb = (VERB.exec(sql)?.[1] ?? 'QUERY').toUpperCase();
  const table = TARGET.exec(sql)?.[1];
  const prepared = obj.options?.name;
  const summary = prepared ?? (table ? `${verb} ${table}` : verb);
  return {
    name: summary,
    attributes: {
      [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
      [ATTR_DB_OPERATION_NAME]: verb,
      [ATTR_DB_QUERY_SUMMARY]: summary,
      ...(table ? { [ATTR_DB_COLLECTION_NAME]: table } : {}),
    },
  };
}

/**
 * knex's Postgres client with a span around each statement it sends: the one place every query passes (builders,
 * raw statements, prepared ones, transactions: a transaction's client is made from this class's prototype). A
 * statement outside any span (a pool check, a sweep's first read) is sent as before, without one.
 */
export class TracedPgClient extends PgClient {
  override _query(connection: unknown, obj: QueryObject): Promise<unknown> {
    const span = childSpan(SpanKind.CLIENT, () => statementAttributes(obj));
    if (!span) return super._query(connection, obj);
    return super._query(connection, obj).then(
      (result) => {
        span.end();
        return result;
      },
      (err: unknown) => {
        // A SQLSTATE (`23505`) says what went wrong; the message may quote the values that did.
        const code = (err as { code?: unknown }).code;
        if (typeof code === 'string') span.setAttribute(ATTR_DB_RESPONSE_STATUS_CODE, code);
        failSpan(span, err);
        span.end();
        throw err;
      },
    );
  }
}
