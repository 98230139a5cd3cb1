/**
 * A worker process for the crash test: serves the run queues, with a resolve
 * step that announces itself and then hangs, so the test can SIGKILL it mid-step.
 */
import { registerStepHandler } from '../../jobs/steps.js';
import { loadConfig } from '../../shared/config.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { startWorkers } from '../../workers/domains.js';

registerStepHandler('resolve', async (input) => {
  process.stdout.write(`STEP_STARTED ${input.runId}\n`);
  await new Promise((r) => setTimeout(r, 600_000));
  return { output: {}, evidence: [], conversation: [] };
});
const deps = createDeps(loadConfig(), createLogger('silent'));
startWorkers(deps, ['hunt', 'resolve', 'orchestrator']);
process.stdout.write('WORKER_READY\n');
