import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Context, Middleware, Next } from 'koa';
import { QUEUE_NAMES } from '../../jobs/registry.js';
import type { Deps } from '../../shared/deps.js';
import { requireAuth } from './auth.js';

export const BOARD_PATH = '/admin/queues';

/** Bull Board over every queue, for tokens with the `admin` scope only. */
export function adminBoard(deps: Deps): Middleware {
  const adapter = new KoaAdapter();
  adapter.setBasePath(BOARD_PATH);
  createBullBoard({ queues: deps.queues.all(QUEUE_NAMES).map((q) => new BullMQAdapter(q)), serverAdapter: adapter });
  const board = adapter.registerPlugin() as unknown as Middleware;
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== BOARD_PATH && !ctx.path.startsWith(`${BOARD_PATH}/`)) return next();
    requireAuth(ctx, ['admin']);
    return board(ctx, next);
  };
}
