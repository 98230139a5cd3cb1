import { existsSync } from 'node:fs';
import path from 'node:path';
import { dashboardDir } from '../api/middleware/dashboard.js';

/** Builds the dashboard (Vite) unless dashboard/dist already holds a build; `npm start` calls it. */
export async function ensureDashboardBuilt(log: (message: string) => void): Promise<void> {
  const out = dashboardDir();
  if (existsSync(path.join(out, 'index.html'))) return;
  log('building the dashboard (dashboard/dist is missing)');
  const { build } = await import('vite');
  await build({ configFile: path.join(path.dirname(out), 'vite.config.ts'), logLevel: 'warn' });
}
