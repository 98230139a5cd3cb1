import { Type } from '@sinclair/typebox';
import { getTask, TASK_STATUSES, taskView, transitionTask, type TaskRow } from '../../shared/db/tasks.js';
import { page } from '../../shared/db/page.js';
import { notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { AnyObject, PageQuery } from '../../shared/schemas/common.js';
import { Channel } from '../../shared/schemas/orchestrator.js';
import { wakeDispatcher } from '../../jobs/events/ledger.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';

const r = routeGroup('tasks', { read: ['tasks:read'], write: ['tasks:write'] });
const TaskDomain = Type.Union(['hunt', 'resolve', 'bridge', 'proxy', 'pay'].map((d) => Type.Literal(d)));

export const TaskCreate = Type.Object(
  { domain: TaskDomain, inData: AnyObject, userId: Type.Optional(Type.String({ maxLength: 200 })), channel: Type.Optional(Channel) },
  { $id: 'TaskCreate' },
);
export const TaskUpdate = Type.Object(
  {
    status: Type.Optional(Type.Union(TASK_STATUSES.map((s) => Type.Literal(s)))),
    outData: Type.Optional(AnyObject),
    state: Type.Optional(AnyObject),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { $id: 'TaskUpdate' },
);
const TaskListQuery = Type.Composite([PageQuery, Type.Object({ status: Type.Optional(Type.String()), domain: Type.Optional(Type.String()) })]);

export const routes = [
  r.post('/v1/tasks', 'Create a task (status open)', {
    body: TaskCreate,
    handler: async ({ body, principal }, deps) => {
      const id = newId('task');
      const [row] = await deps.db.transaction(async (trx) => {
        const created = await trx('tasks').insert({ id, account_id: principal!.accountId, domain: body.domain, in_data: JSON.stringify(body.inData), user_id: body.userId ?? null, channel: body.channel ?? 'api' }).returning('*');
        await trx('task_audit').insert({ task_id: id, account_id: principal!.accountId, actor: `token:${principal!.tokenId}`, from_status: null, to_status: 'open', note: 'created' });
        return created;
      });
      return new Reply(201, { ok: true, task: await taskView(deps.db, row) });
    },
  }),
  r.get('/v1/tasks', 'List tasks', {
    query: TaskListQuery,
    handler: async ({ query, principal }, deps) => {
      const q = deps.db('tasks').where({ account_id: principal!.accountId });
      if (query.status) q.andWhere({ status: query.status });
      if (query.domain) q.andWhere({ domain: query.domain });
      const { rows, nextCursor } = await page<TaskRow>(q, query.limit ?? 50, query.cursor);
      return { ok: true, tasks: await Promise.all(rows.map((t) => taskView(deps.db, t))), nextCursor };
    },
  }),
  r.get('/v1/tasks/{taskId}', 'Fetch a task with its audit trail', {
    handler: async ({ params, principal }, deps) => {
      const task = await getTask(deps.db, principal!.accountId, params.taskId!);
      if (!task) throw notFound(`Task ${params.taskId}`);
      return { ok: true, task: await taskView(deps.db, task) };
    },
  }),
  r.post('/v1/tasks/{taskId}/update', 'Update a task: status (checked against the transition table), outData, state', {
    body: TaskUpdate,
    handler: async ({ params, body, principal }, deps) => {
      const row = await deps.db.transaction(async (trx) => {
        const task = await getTask(trx, principal!.accountId, params.taskId!, true);
        if (!task) throw notFound(`Task ${params.taskId}`);
        return transitionTask(trx, principal!.accountId, task.id, body.status ?? task.status, { actor: `token:${principal!.tokenId}`, note: body.note, outData: body.outData, state: body.state });
      });
      if (row.deliveries > 0) await wakeDispatcher(deps);
      return { ok: true, task: await taskView(deps.db, row) };
    },
  }),
];
