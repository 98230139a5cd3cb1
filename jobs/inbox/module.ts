/**
 * The inbox module's registration (its routes, the notification queue and sweep, the engine hooks it provides): only
 * the module list (jobs/modules.ts) imports this file. Other modules use jobs/inbox/index.ts, its public face.
 */
import type { ServiceModule } from '../module-registry.js';
import { INBOX_NOTIFY_QUEUE, noticeWaitpoint, sendNotices, sweepNotices, wakeNotices } from './notices.js';
import { routes } from './routes.js';

export const inbox: ServiceModule = {
  name: 'inbox',
  routes,
  queues: { [INBOX_NOTIFY_QUEUE]: (_job, deps) => sendNotices(deps) },
  sweeps: { 'inbox.notify': { cron: '* * * * *', run: sweepNotices } },
  provides: { inboxNotice: noticeWaitpoint, wakeInbox: wakeNotices },
};
