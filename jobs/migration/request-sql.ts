import { parsesCleanly } from './parse.js';

/**
 * SQL written into a run's request ("is this safe? ALTER TABLE users ADD
 * COLUMN …"): the ```sql blocks when there are any, else the text from the
 * first word that starts a statement Postgres can parse. The parser decides
 * what is SQL, so "update the docs" is never taken for an UPDATE.
 */

const FENCED = /```[ \t]*(?:sql|postgres|postgresql|pgsql)?[ \t]*\n([\s\S]*?)```/gi;
const STARTS =
  /\b(alter|create|drop|update|delete|insert|truncate|vacuum|cluster|reindex|begin|lock|comment on|grant|revoke)\b/gi;

export async function sqlFromRequest(text: string): Promise<string | null> {
  const fenced = [...text.matchAll(FENCED)].map((m) => m[1]!.trim()).filter(Boolean);
  if (fenced.length > 0) return fenced.join('\n');
  for (const m of text.matchAll(STARTS)) {
    const tail = text.slice(m.index);
    const lastSemicolon = tail.lastIndexOf(';');
    const candidates = [
      tail,
      lastSemicolon > 0 ? tail.slice(0, lastSemicolon + 1) : null,
      tail.replace(/[\s?!.]+$/, ''),
    ];
    for (const candidate of candidates) if (candidate && (await parsesCleanly(candidate))) return candidate.trim();
  }
  return null;
}
