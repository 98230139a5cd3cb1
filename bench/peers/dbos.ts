/**
 * DBOS Transact (@dbos-inc/dbos-sdk): the 3-step workflow as DBOS documents
 * it, a function registered with DBOS.registerWorkflow whose steps are
 * DBOS.runStep calls (each step's output is checkpointed in the system
 * database before the next step runs), started with DBOS.startWorkflow and
 * awaited through its handle. DBOS runs the workflow in this process; its
 * only store is its system database (no Redis).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { runPeer, versionOf } from './harness.js';
import { STEP_NAMES, stepWork } from './workload.js';

await runPeer(async (cfg) => {
  async function threeSteps(runId: string): Promise<string> {
    let digest = '';
    for (const step of STEP_NAMES) {
      const prev = digest;
      digest = await DBOS.runStep(async () => stepWork(runId, step, prev, cfg.rounds), { name: step });
    }
    return digest;
  }
  const workflow = DBOS.registerWorkflow(threeSteps, { name: 'threeSteps' });
  const poolSize = 10;
  DBOS.setConfig({
    name: 'awp-bench-peer',
    // A fixed version: otherwise DBOS derives one from a hash of the workflow code.
    applicationVersion: '0.1.0',
    systemDatabaseUrl: cfg.databaseUrl,
    // The same number of Postgres connections as one awp process (DB_POOL_MAX's default).
    systemDatabasePoolSize: poolSize,
    logLevel: 'error',
  });
  await DBOS.launch();
  return {
    async once(runId) {
      const handle = await DBOS.startWorkflow(workflow)(runId);
      return handle.getResult();
    },
    stop: () => DBOS.shutdown(),
    setup: {
      library: `@dbos-inc/dbos-sdk ${versionOf('@dbos-inc/dbos-sdk')}`,
      api: 'DBOS.registerWorkflow + DBOS.runStep; DBOS.startWorkflow(...).getResult()',
      store: 'Postgres system database (own database on the bench server)',
      postgresPool: poolSize,
      usesRedis: false,
      durability: 'each step checkpointed before the next starts',
    },
  };
});
