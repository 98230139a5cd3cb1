import type { Command } from 'commander';
import { UsageError } from './config.js';
import { clientFrom, EXIT, jsonOption, type Io } from './main.js';

export function tokenCommands(program: Command, io: Io): void {
  const tokens = program.command('tokens').description("the account's API tokens");
  tokens
    .command('ls')
    .description('list tokens (never their secrets)')
    .addOption(jsonOption())
    .action(async (opts: { json?: boolean }) => {
      for (const t of await clientFrom(io).tokens.list())
        io.out(
          opts.json
            ? JSON.stringify(t)
            : `${t.tokenId}  ${t.status.padEnd(8)}  ${t.prefix}…  ${t.name}  [${t.scopes.join(' ')}]`,
        );
    });
  tokens
    .command('create')
    .description('create a token; its secret is printed once')
    .option('--name <name>', 'what the token is for')
    .option('--scopes <list>', "comma-separated scopes (default: the calling token's)")
    .addOption(jsonOption())
    .action(async (opts: { name?: string; scopes?: string; json?: boolean }) => {
      const res = await clientFrom(io).tokens.create({
        ...(opts.name ? { name: opts.name } : {}),
        ...(opts.scopes ? { scopes: opts.scopes.split(',').map((s) => s.trim()) as never } : {}),
      });
      if (opts.json) return io.out(JSON.stringify(res));
      io.out(`token ${res.tokenInfo.tokenId} created (scopes: ${res.tokenInfo.scopes.join(' ')})`);
      io.out(res.token);
      io.err('the secret above is shown once: store it now');
    });
  tokens
    .command('revoke')
    .description('revoke a token at once')
    .argument('<tokenId>')
    .action(async (tokenId: string) => {
      const res = await clientFrom(io).tokens.revoke(tokenId);
      io.out(`token ${res.token.tokenId} ${res.token.status}`);
    });
}

const SETTLED = new Set(['completed', 'failed', 'canceled']);

export function webhookCommands(program: Command, io: Io): void {
  const webhooks = program.command('webhooks').description('webhook subscriptions');
  webhooks
    .command('test')
    .description('record a test event and report its delivery to every subscription it matches')
    .option('--type <type>', 'the event type (dotted, lower case; your subscriptions must match it)', 'awp.cli.test')
    .option('--wait <seconds>', 'how long to wait for the deliveries', (v) => Number(v), 30)
    .action(async (opts: { type: string; wait: number }) => {
      if (!Number.isFinite(opts.wait) || opts.wait < 0) throw new UsageError('--wait must be a number of seconds');
      const awp = clientFrom(io);
      const recorded = await awp.events.record({
        type: opts.type,
        payload: { test: true, sentBy: 'awp webhooks test', sentAt: new Date().toISOString() },
      });
      const eventId = recorded.event.eventId;
      io.out(`event ${eventId} (${opts.type}) recorded`);
      const deadline = Date.now() + opts.wait * 1000;
      for (;;) {
        const { deliveries } = await awp.events.get(eventId);
        if (deliveries.length === 0) {
          io.err(`no subscription matches ${opts.type}: subscribe with events ["*"] or ["${opts.type}"]`);
          io.exitCode = EXIT.runNotGood;
          return;
        }
        const latest = latestPerSubscription(deliveries);
        if (latest.every((d) => SETTLED.has(d.status) && d.status !== 'failed') || Date.now() > deadline) {
          for (const d of latest)
            io.out(`subscription ${d.subscriptionId}: ${d.status} (attempt ${d.attempt}, delivery ${d.deliveryId})`);
          if (latest.some((d) => d.status !== 'completed')) io.exitCode = EXIT.runNotGood;
          return;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    });
}

type Delivery = { subscriptionId: string; status: string; attempt: number; deliveryId: string };

/** A failed attempt is followed by a retry: each subscription's newest attempt says where its delivery stands. */
function latestPerSubscription(deliveries: Delivery[]): Delivery[] {
  const bySub = new Map<string, Delivery>();
  for (const d of deliveries) {
    const seen = bySub.get(d.subscriptionId);
    if (!seen || d.attempt > seen.attempt) bySub.set(d.subscriptionId, d);
  }
  return [...bySub.values()];
}
