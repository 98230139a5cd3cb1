import { Type } from '@sinclair/typebox';
import { Nullable, AnyObject, Ok, Page, PageQuery, StringEnum, Timestamp } from '../../shared/schemas/common.js';
import { DOMAIN_NAMES } from '../../shared/domain-names.js';
import { Channel } from '../../shared/schemas/orchestrator.js';
import { TASKS } from './machine.js';
import { createTask, fetchTask, findTasks, updateTaskByClient } from './service.js';
import { taskView } from './view.js';
import { routeGroup } from '../../shared/http/route-group.js';
import { Reply } from '../../shared/http/route-spec.js';

const r = routeGroup('tasks', { read: ['tasks:read'], write: ['tasks:write'] });
/** Any domain of the one list: a task may belong to a developer-delivery domain too. */
const TaskDomain = StringEnum(DOMAIN_NAMES);
const TaskStatus = StringEnum(TASKS.statuses);

export const TaskCreate = Type.Object(
  {
    domain: TaskDomain,
    inData: AnyObject,
    userId: Type.Optional(Type.String({ maxLength: 200 })),
    channel: Type.Optional(Channel),
  },
  { $id: 'TaskCreate' },
);
export const TaskUpdate = Type.Object(
  {
    status: Type.Optional(TaskStatus),
    outData: Type.Optional(AnyObject),
    state: Type.Optional(AnyObject),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { $id: 'TaskUpdate' },
);
const TaskListQuery = Type.Composite([
  PageQuery,
  Type.Object({ status: Type.Optional(TaskStatus), domain: Type.Optional(TaskDomain) }),
]);

const TaskView = Type.Object(
  {
    taskId: Type.String(),
    domain: TaskDomain,
    status: TaskStatus,
    allowedTransitions: Type.Array(TaskStatus, { description: 'The statuses an update may move it to now' }),
    inData: AnyObject,
    outData: Nullable(AnyObject),
    state: AnyObject,
    userId: Nullable(Type.String()),
    channel: Channel,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    audit: Type.Array(
      Type.Object({
        actor: Type.String(),
        from: Nullable(TaskStatus),
        to: TaskStatus,
        note: Nullable(Type.String()),
        at: Timestamp,
      }),
    ),
  },
  { $id: 'Task' },
);
const TaskAnswer = Ok({ task: TaskView }, 'TaskAnswer');

export const routes = [
  r.post('/v1/tasks', 'Create a task (status open)', {
    body: TaskCreate,
    response: { 201: TaskAnswer },
    handler: async ({ body, principal }, deps) =>
      new Reply(201, { ok: true, task: taskView(await createTask(deps, principal!, body)) }),
  }),
  r.get('/v1/tasks', 'List tasks', {
    query: TaskListQuery,
    response: { 200: Page('tasks', TaskView, 'TaskPage') },
    handler: async ({ query, principal }, deps) => {
      const { tasks, nextCursor } = await findTasks(deps, principal!, query);
      return { ok: true, tasks: tasks.map(taskView), nextCursor };
    },
  }),
  r.get('/v1/tasks/{taskId}', 'Fetch a task with its audit trail', {
    response: { 200: TaskAnswer },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      task: taskView(await fetchTask(deps, principal!, params.taskId!)),
    }),
  }),
  r.post('/v1/tasks/{taskId}/update', 'Update a task: status (checked against the transition table), outData, state', {
    body: TaskUpdate,
    response: { 200: TaskAnswer },
    handler: async ({ params, body, principal }, deps) => ({
      ok: true,
      task: taskView(await updateTaskByClient(deps, principal!, params.taskId!, body)),
    }),
  }),
];
