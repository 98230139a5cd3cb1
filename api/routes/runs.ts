import type { AnyRoute } from './route-spec.js';

/** Run API (GET /v1/runs, events, cancel, resume): arrives with the run engine. */
export const routes: AnyRoute[] = [];
