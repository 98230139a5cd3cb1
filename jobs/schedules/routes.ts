import {
  createSchedule,
  fetchSchedule,
  findSchedules,
  pauseSchedule,
  removeSchedule,
  resumeSchedule,
  triggerSchedule,
} from './service.js';
import { FiringAnswer, ScheduleAnswer, ScheduleCreate, ScheduleDetail, SchedulePage } from './schemas.js';
import { firingView, scheduleView } from './views.js';
import { pathParams, routeGroup } from '../../shared/http/route-group.js';
import { defineRoute, Reply } from '../../shared/http/route-spec.js';
import { iso } from '../../shared/db/knex.js';
import { Deleted, PageQuery } from '../../shared/schemas/common.js';

const scopes = { read: ['schedules:read'], write: ['schedules:write'] };
const r = routeGroup('schedules', scopes);
const ONE = '/v1/schedules/{scheduleId}';

export const routes = [
  r.post(
    '/v1/schedules',
    'Create a schedule: a cron expression (seconds optional) in an IANA time zone, the run it starts, ' +
      'overlap and catch-up policies',
    {
      body: ScheduleCreate,
      response: { 201: ScheduleAnswer },
      handler: async ({ body, principal }, deps) =>
        new Reply(201, { ok: true, schedule: scheduleView(await createSchedule(deps, principal, body)) }),
    },
  ),
  r.get('/v1/schedules', 'List schedules', {
    query: PageQuery,
    response: { 200: SchedulePage },
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await findSchedules(deps, principal, query);
      return { ok: true, schedules: rows.map(scheduleView), nextCursor };
    },
  }),
  r.get(ONE, 'Fetch a schedule with its next five fire times and its last ten firings', {
    response: { 200: ScheduleDetail },
    handler: async ({ params, principal }, deps) => {
      const found = await fetchSchedule(deps, principal, params.scheduleId);
      return {
        ok: true,
        schedule: scheduleView(found.schedule),
        nextFireTimes: found.nextFireTimes.map((d) => iso(d)!),
        recentFirings: found.recentFirings.map(firingView),
      };
    },
  }),
  r.post(`${ONE}/pause`, 'Pause a schedule: no tick fires until it is resumed (409 when paused)', {
    response: { 200: ScheduleAnswer },
    handler: async ({ params, principal }, deps) => ({
      ok: true,
      schedule: scheduleView(await pauseSchedule(deps, principal, params.scheduleId)),
    }),
  }),
  r.post(
    `${ONE}/resume`,
    'Resume a schedule from its next tick; ticks passed while paused are not caught up (409 when active)',
    {
      response: { 200: ScheduleAnswer },
      handler: async ({ params, principal }, deps) => ({
        ok: true,
        schedule: scheduleView(await resumeSchedule(deps, principal, params.scheduleId)),
      }),
    },
  ),
  r.post(
    `${ONE}/trigger`,
    'Fire the schedule now (a manual firing, under its overlap policy); answers the firing with its run',
    {
      response: { 200: FiringAnswer },
      handler: async ({ params, principal }, deps) => ({
        ok: true,
        firing: firingView(await triggerSchedule(deps, principal, params.scheduleId)),
      }),
    },
  ),
  defineRoute({
    method: 'DELETE',
    path: ONE,
    tag: 'schedules',
    auth: 'bearer',
    scopes: scopes.write,
    params: pathParams(ONE),
    summary: 'Delete a schedule and its firings (the runs it started stay)',
    response: { 200: Deleted },
    handler: async ({ params, principal }, deps) => {
      await removeSchedule(deps, principal, (params as { scheduleId: string }).scheduleId);
      return { ok: true };
    },
  }),
];
