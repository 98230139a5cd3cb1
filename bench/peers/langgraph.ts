/**
 * LangGraph JS: the 3-step workflow as LangGraph documents it, a StateGraph
 * of three nodes in a line (START → one → two → three → END) compiled with a
 * PostgresSaver checkpointer and invoked once per workflow under its own
 * thread id. Durability is LangGraph's default ("async": a step's checkpoint
 * is written while the next step runs; invoke resolves only after every
 * checkpoint is stored). Its only store is Postgres (no Redis).
 */
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { runPeer, versionOf } from './harness.js';
import { STEP_NAMES, stepWork } from './workload.js';

const State = Annotation.Root({
  runId: Annotation<string>,
  digest: Annotation<string>,
});
type S = typeof State.State;

await runPeer(async (cfg) => {
  // fromConnString builds a pg.Pool with pg's default size (10), the same as one awp process.
  const checkpointer = PostgresSaver.fromConnString(cfg.databaseUrl);
  await checkpointer.setup();
  const step = (name: string) => (s: S) => ({ digest: stepWork(s.runId, name, s.digest, cfg.rounds) });
  const [one, two, three] = STEP_NAMES;
  const graph = new StateGraph(State)
    .addNode(one, step(one))
    .addNode(two, step(two))
    .addNode(three, step(three))
    .addEdge(START, one)
    .addEdge(one, two)
    .addEdge(two, three)
    .addEdge(three, END)
    .compile({ checkpointer });
  return {
    async once(runId) {
      const out = await graph.invoke({ runId, digest: '' }, { configurable: { thread_id: runId } });
      return out.digest;
    },
    stop: () => checkpointer.end(),
    setup: {
      library:
        `@langchain/langgraph ${versionOf('@langchain/langgraph')}, @langchain/langgraph-checkpoint-postgres ` +
        `${versionOf('@langchain/langgraph-checkpoint-postgres')}`,
      api: 'StateGraph (3 nodes) compiled with PostgresSaver; graph.invoke(input, { configurable: { thread_id } })',
      store: 'PostgresSaver tables (own database on the bench server)',
      postgresPool: 10,
      usesRedis: false,
      durability: 'default ("async"): checkpoints written alongside the next step, all stored before invoke resolves',
    },
  };
});
