import { Command, CommanderError, Option } from 'commander';
import { AwpError, createAwpClient, type AwpClient } from '../sdk/src/index.js';
import { configPath, loadConfig, UsageError } from './config.js';
import { runCommands } from './runs.js';
import { tokenCommands, webhookCommands } from './account.js';

/** Exit codes (docs/cli.md): what a script calling the CLI can tell apart. */
export const EXIT = { ok: 0, runNotGood: 1, usage: 2, refused: 3, unreachable: 4 } as const;

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /** What a command that ran leaves for the exit (a run that failed: 1). */
  exitCode?: number;
}

/** The client of the configured service; asked for lazily so `--help` needs no configuration. */
export function clientFrom(io: Io): AwpClient {
  const config = loadConfig(io.env);
  if (!config.token)
    throw new UsageError(
      `no API token: set AWP_TOKEN, or put {"url": "…", "token": "awp_…"} in ${configPath(io.env)} ` +
        '(a token comes from the dashboard, POST /v1/tokens, or `npm run token:admin` for an operator)',
    );
  return createAwpClient({
    baseUrl: config.url,
    token: config.token,
    retry: { onRetry: (r) => io.err(`service busy (${r.status}): retrying in ${Math.ceil(r.delayMs / 1000)} s`) },
  });
}

export function buildProgram(io: Io): Command {
  const program = new Command('awp')
    .description('The awp service from the shell: runs, tokens and webhooks (uses the awp SDK)')
    .version('0.1.0')
    .addHelpText(
      'after',
      `\nConfiguration: AWP_URL and AWP_TOKEN, else "url" and "token" in ${configPath(io.env)}.\n` +
        'Exit codes: 0 done, 1 the run failed or was canceled, 2 usage or configuration, 3 refused by the ' +
        'service, 4 service unreachable.',
    )
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride();
  runCommands(program, io);
  tokenCommands(program, io);
  webhookCommands(program, io);
  return program;
}

/** Runs the command line and answers its exit code; never throws. */
export async function main(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return io.exitCode ?? EXIT.ok;
  } catch (error) {
    return report(error, io);
  }
}

function report(error: unknown, io: Io): number {
  if (error instanceof CommanderError)
    return error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version'
      ? EXIT.ok
      : EXIT.usage;
  if (error instanceof UsageError) {
    io.err(`awp: ${error.message}`);
    return EXIT.usage;
  }
  if (error instanceof AwpError) {
    const id = error.requestId ? ` (request ${error.requestId})` : '';
    io.err(`awp: ${error.code} (HTTP ${error.status}): ${error.message}${id}`);
    return error.status >= 500 ? EXIT.unreachable : EXIT.refused;
  }
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  if (error instanceof TypeError && /fetch failed/.test(error.message)) {
    const url = io.env.AWP_URL ?? 'the configured URL';
    io.err(`awp: cannot reach the service at ${url}${cause ? ` (${cause})` : ''}`);
    return EXIT.unreachable;
  }
  io.err(`awp: ${error instanceof Error ? error.message : String(error)}`);
  return EXIT.unreachable;
}

/** `--json`: print the answer as JSON instead of the human lines. */
export const jsonOption = () => new Option('--json', 'print JSON');
