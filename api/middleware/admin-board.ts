import type { Context, Middleware, Next } from 'koa';
import { QUEUE_NAMES } from '../../jobs/registry.js';
import type { Deps } from '../../shared/deps.js';
import { requireAuth } from './auth.js';

export const BOARD_PATH = '/admin/queues';

/**
 * Bull Board over every queue, built on its first (authorised) request: an API nobody opens it on does not carry it
 * (about 8 MB).
 */
async function buildBoard(deps: Deps): Promise<Middleware> {
  const [{ createBullBoard }, { BullMQAdapter }, { KoaAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/koa'),
  ]);
  const adapter = new KoaAdapter();
  adapter.setBasePath(BOARD_PATH);
  // A queue on a shard other than 0 is named after its shard too: the board tells queues apart by name.
  const queues = deps.queues
    .all(QUEUE_NAMES)
    .map(({ queue, shard }) => new BullMQAdapter(queue, shard === 0 ? {} : { prefix: `shard ${shard}: ` }));
  createBullBoard({ queues, serverAdapter: adapter });
  return adapter.registerPlugin() as unknown as Middleware;
}

/** Bull Board over every queue, for tokens with the `admin` scope only. */
export function adminBoard(deps: Deps): Middleware {
  let board: Promise<Middleware> | undefined;
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== BOARD_PATH && !ctx.path.startsWith(`${BOARD_PATH}/`)) return next();
    requireAuth(ctx, ['admin']);
    return (await (board ??= buildBoard(deps)))(ctx, next);
  };
}
