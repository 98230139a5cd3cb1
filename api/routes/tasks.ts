import { Type } from '@sinclair/typebox';
import { AnyObject } from '../../shared/schemas/common.js';
import { Channel } from '../../shared/schemas/orchestrator.js';
import { routeGroup } from './group.js';

const r = routeGroup('tasks', { read: ['tasks:read'], write: ['tasks:write'] });

export const TaskCreate = Type.Object(
  {
    domain: Type.Union(['hunt', 'resolve', 'bridge', 'proxy', 'pay'].map((d) => Type.Literal(d))),
    inData: AnyObject,
    userId: Type.Optional(Type.String({ maxLength: 200 })),
    channel: Type.Optional(Channel),
  },
  { $id: 'TaskCreate', additionalProperties: true },
);

export const routes = [
  r.post('/v1/tasks', 'Create a task', { body: TaskCreate }),
  r.get('/v1/tasks', 'List tasks', { list: true }),
  r.get('/v1/tasks/{taskId}', 'Fetch a task with its audit trail'),
  r.post('/v1/tasks/{taskId}/update', 'Update a task (status transitions are checked)'),
];
