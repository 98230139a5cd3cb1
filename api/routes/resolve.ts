import type { AnyRoute } from './route-spec.js';

export const routes: AnyRoute[] = [];
