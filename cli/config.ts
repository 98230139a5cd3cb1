import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where the service is and who calls it. */
export interface CliConfig {
  url: string;
  token: string | undefined;
  /** Where the file values came from (for messages), or null when none was read. */
  file: string | null;
}

/** A problem with the command line or its configuration: exit code 2, the message, no stack. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const DEFAULT_URL = 'http://localhost:8080';

/** `$AWP_CONFIG`, else `$XDG_CONFIG_HOME/awp/config.json`, else `~/.config/awp/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AWP_CONFIG) return env.AWP_CONFIG;
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'awp', 'config.json');
}

/**
 * The environment wins over the file: `AWP_URL` and `AWP_TOKEN`, then `url` and `token` in the config file. A file
 * that is there but unreadable or not JSON is an error, not silently skipped: the token in it would be lost.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const file = configPath(env);
  let fromFile: { url?: unknown; token?: unknown } = {};
  let read: string | null = null;
  try {
    const text = readFileSync(file, 'utf8');
    read = file;
    fromFile = JSON.parse(text) as typeof fromFile;
    if (!fromFile || typeof fromFile !== 'object' || Array.isArray(fromFile)) throw new Error('not a JSON object');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      throw new UsageError(`cannot read the config file ${file}: ${(error as Error).message}`);
  }
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  const url = str(env.AWP_URL) ?? str(fromFile.url) ?? DEFAULT_URL;
  if (!/^https?:\/\/[^\s/]+/.test(url))
    throw new UsageError(`the service URL must be http(s)://host[:port], got "${url}"`);
  return { url, token: str(env.AWP_TOKEN) ?? str(fromFile.token), file: read };
}
