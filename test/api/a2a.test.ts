import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Role, TaskState, type AgentCard, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  createAuthenticatingFetchWithRetry,
} from '@a2a-js/sdk/client';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';

/** The official client's fetch with a bearer token, as the SDK's own auth helper adds it. */
const authedFetch = (token?: string) =>
  createAuthenticatingFetchWithRetry(fetch, {
    headers: async (): Promise<Record<string, string>> => (token ? { Authorization: `Bearer ${token}` } : {}),
    shouldRetryWithHeaders: async () => undefined,
  });

/** A 1.x client from the service's agent card, unmodified: card → JSON-RPC transport it names. */
async function v1Client(token?: string): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authedFetch(token) })],
    }),
  );
  return factory.createFromUrl(harness.url);
}

/**
 * The SDK's 0.3 client: the 0.3 card (no A2A-Version header) read by the compat resolver, which picks the 0.3 JSON-RPC
 * transport.
 */
async function v03Client(token?: string): Promise<Client> {
  const legacy = { legacyCompat: { enabled: true } };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ ...legacy, fetchImpl: authedFetch(token) })],
    cardResolver: new DefaultAgentCardResolver(legacy),
  });
  const card = await (await fetch(`${harness.url}/.well-known/agent-card.json`)).json();
  return factory.createFromAgentCard(card as AgentCard);
}

function userMessage(
  text: string | null,
  opts: { data?: Record<string, unknown>; taskId?: string; contextId?: string } = {},
): Message {
  const parts = [
    ...(text
      ? [
          {
            content: { $case: 'text' as const, value: text },
            metadata: undefined,
            filename: '',
            mediaType: 'text/plain',
          },
        ]
      : []),
    ...(opts.data
      ? [
          {
            content: { $case: 'data' as const, value: opts.data },
            metadata: undefined,
            filename: '',
            mediaType: 'application/json',
          },
        ]
      : []),
  ];
  return {
    messageId: randomUUID(),
    contextId: opts.contextId ?? '',
    taskId: opts.taskId ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const send = (client: Client, message: Message, returnImmediately = false) =>
  client.sendMessage({
    tenant: '',
    message,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
    metadata: undefined,
  }) as Promise<Task>;

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

const dataOf = (task: Task, name: string) =>
  (task.artifacts.find((a) => a.name === name)?.parts[0]?.content as { value: any } | undefined)?.value;

describe('A2A: agent card and JSON-RPC (official @a2a-js/sdk clients, real server)', () => {
  let a: { token: string; accountId: string };
  let b: { token: string };
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    await seedCatalog(a.accountId);
  });

  it(
    'the agent card is public, names the skills, the JSON-RPC URL the client used and a bearer scheme, in 1.0 ' +
      'and 0.3 shapes',
    async () => {
      const v1 = await harness.call('GET', '/.well-known/agent-card.json', { headers: { 'a2a-version': '1.0' } });
      assert.equal(v1.status, 200);
      assert.deepEqual(
        v1.body.supportedInterfaces.map((i: any) => [i.url, i.protocolBinding, i.protocolVersion]),
        [
          [`${harness.url}/a2a`, 'JSONRPC', '1.0'],
          [`${harness.url}/a2a`, 'JSONRPC', '0.3'],
        ],
      );
      assert.deepEqual(v1.body.securitySchemes.bearer, {
        httpAuthSecurityScheme: v1.body.securitySchemes.bearer.httpAuthSecurityScheme,
      });
      assert.equal(v1.body.securitySchemes.bearer.httpAuthSecurityScheme.scheme, 'bearer');
      const skills = v1.body.skills.map((s: any) => s.id);
      for (const id of [
        'hunt',
        'resolve',
        'bridge',
        'proxy',
        'pay',
        'template:findBestFit',
        'template:vendorDueDiligence',
        'template:coordinateHumanProcess',
      ])
        assert.ok(skills.includes(id), id);
      assert.equal(v1.body.capabilities.streaming, true);
      const v03 = await harness.call('GET', '/.well-known/agent-card.json');
      assert.equal(v03.body.url, `${harness.url}/a2a`);
      assert.equal(v03.body.protocolVersion, '0.3');
      assert.equal(v03.body.preferredTransport, 'JSONRPC');
      assert.deepEqual(v03.body.securitySchemes.bearer.type, 'http');
      // fetch will not send another Host; a plain request can.
      const named = await new Promise<any>((resolve, reject) => {
        http
          .get(`${harness.url}/.well-known/agent-card.json`, { headers: { host: 'agents.example:9443' } }, (res) => {
            let text = '';
            res.on('data', (c) => (text += c)).on('end', () => resolve(JSON.parse(text)));
          })
          .on('error', reject);
      });
      assert.equal(named.url, 'http://agents.example:9443/a2a');
    },
  );

  it(
    '1.x client: SendMessage runs the request as a run; the task is that run, readable over HTTP with the same ' + 'id',
    async () => {
      const client = await v1Client(a.token);
      const task = await send(
        client,
        userMessage('find the cheapest espresso machine under $250', { data: { domainRoute: ['hunt'] } }),
      );
      assert.match(task.id, /^run_/);
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.ok(task.contextId);
      const result = dataOf(task, 'result');
      assert.deepEqual(result.route, ['hunt']);
      assert.ok(result.results.hunt.candidates.length > 0);
      assert.equal(dataOf(task, 'proofCard').kind, 'proofCard');
      const http = await harness.call('GET', `/v1/runs/${task.id}`, { token: a.token });
      assert.deepEqual(
        [http.status, http.body.run.status, http.body.run.conversationId],
        [200, 'ready', task.contextId],
      );
      assert.equal((await harness.deps.db('runs').where({ id: task.id }).first()).channel, 'a2a');
      const got = await client.getTask({ tenant: '', id: task.id });
      assert.equal(got.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(got.history[0]?.parts[0]?.content?.$case, 'text');
    },
  );

  it('1.x client: SendStreamingMessage streams the task, its progress, its artifacts and the final state', async () => {
    const client = await v1Client(a.token);
    const events = await collect(
      client.sendMessageStream({
        tenant: '',
        message: userMessage('audit this claim: the invoice says $1,200 but the quote said $900'),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    assert.equal(events[0]!.payload?.$case, 'task');
    const cases = events.map((e) => e.payload?.$case);
    assert.ok(cases.includes('statusUpdate') && cases.includes('artifactUpdate'), cases.join());
    const last = events.at(-1)!.payload;
    assert.equal(last?.$case, 'statusUpdate');
    assert.equal((last!.value as any).status.state, TaskState.TASK_STATE_COMPLETED);
    const runId = (events[0]!.payload!.value as Task).id;
    assert.equal((await harness.call('GET', `/v1/runs/${runId}`, { token: a.token })).body.run.status, 'ready');
  });

  it(
    'input-required is a run waiting for a choice; a message on the task answers it, and cancel ends a waiting ' +
      'one',
    async () => {
      const client = await v1Client(a.token);
      // Answering a choice buys it: the run continues into pay, which settles under the mandate its metadata names.
      const task = await harness.call('POST', '/v1/tasks', { token: a.token, body: { domain: 'pay', inData: {} } });
      const mandate = await harness.call('POST', '/v1/pay/mandates', {
        token: a.token,
        body: { taskId: task.body.task.taskId, constraints: { maxSpend: { amount: 1000, currency: 'USD' } } },
      });
      const paid = { metadata: { mandateId: mandate.body.mandateId } };
      const waiting = await send(
        client,
        userMessage('shortlist espresso machines under $250 so I can choose one', { data: paid }),
      );
      assert.equal(waiting.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      const waitpoint = (waiting.status!.message!.parts[1]!.content as any).value.waitpoint;
      assert.equal(waitpoint.kind, 'NEEDS_INPUT');
      const itemId = waitpoint.payload.choices[0].itemId;
      const answered = await send(
        client,
        userMessage(null, { taskId: waiting.id, contextId: waiting.contextId, data: { itemId, action: 'buy' } }),
      );
      assert.equal(answered.id, waiting.id);
      assert.equal(answered.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(dataOf(answered, 'result').results.hunt.selected.itemId, itemId);
      // A finished task takes no more answers and cannot be canceled.
      await assert.rejects(
        send(client, userMessage(null, { taskId: waiting.id, data: { itemId } })),
        (err: any) => err.name === 'UnsupportedOperationError',
      );
      await assert.rejects(
        client.cancelTask({ tenant: '', id: waiting.id, metadata: undefined }),
        (err: any) => err.name === 'TaskNotCancelableError',
      );

      // Following a finished task is refused; a waiting one shows its state and ends (it moves only when answered).
      await assert.rejects(
        collect(client.resubscribeTask({ tenant: '', id: waiting.id })),
        (err: any) => err.name === 'UnsupportedOperationError',
      );
      const other = await send(client, userMessage('shortlist espresso machines under $250 so I can choose one'));
      const followed = await collect(client.resubscribeTask({ tenant: '', id: other.id }));
      assert.deepEqual(
        followed.map((e) => [e.payload?.$case, (e.payload?.value as Task).status?.state]),
        [['task', TaskState.TASK_STATE_INPUT_REQUIRED]],
      );
      const third = await send(
        client,
        userMessage('shortlist espresso machines under $250 so I can choose one', { data: paid }),
      );
      const thirdChoice = (third.status!.message!.parts[1]!.content as any).value.waitpoint.payload.choices[1].itemId;
      const answer = userMessage(null, { taskId: third.id, contextId: third.contextId, data: { itemId: thirdChoice } });
      const streamed = await collect(
        client.sendMessageStream({ tenant: '', message: answer, configuration: undefined, metadata: undefined }),
      );
      assert.equal((streamed[0]!.payload!.value as Task).id, third.id);
      assert.equal(
        streamed.filter(
          (e) =>
            e.payload?.$case === 'statusUpdate' &&
            (e.payload.value as any).status.state === TaskState.TASK_STATE_INPUT_REQUIRED,
        ).length,
        0,
        'nothing of the first segment is replayed',
      );
      assert.equal((streamed.at(-1)!.payload!.value as any).status.state, TaskState.TASK_STATE_COMPLETED);

      const canceled = await client.cancelTask({ tenant: '', id: other.id, metadata: undefined });
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      assert.equal((await harness.call('GET', `/v1/runs/${other.id}`, { token: a.token })).body.run.status, 'canceled');
    },
  );

  it("another account's task is not found; bad params are InvalidParams; no token is HTTP 401", async () => {
    const mine = await send(
      await v1Client(a.token),
      userMessage('audit this claim', { data: { domainRoute: ['resolve'] } }),
    );
    const theirs = await v1Client(b.token);
    await assert.rejects(theirs.getTask({ tenant: '', id: mine.id }), (err: any) => err.name === 'TaskNotFoundError');
    await assert.rejects(
      theirs.cancelTask({ tenant: '', id: mine.id, metadata: undefined }),
      (err: any) => err.name === 'TaskNotFoundError',
    );
    await assert.rejects(
      theirs.getTask({ tenant: '', id: 'run_missing' }),
      (err: any) => err.name === 'TaskNotFoundError',
    );
    await assert.rejects(send(theirs, userMessage(null)), (err: any) => err.name === 'RequestMalformedError');
    await assert.rejects(send(await v1Client(), userMessage('audit this claim')), (err: any) =>
      /401/.test(err.message),
    );
    const raw = await harness.call('POST', '/a2a', {
      body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: mine.id } },
      headers: { 'a2a-version': '1.0' },
    });
    assert.deepEqual([raw.status, raw.body.error], [401, 'unauthorized']);
  });

  it(
    'scopes and the starter allowance are the HTTP ones: the sixth workflow request, over whichever transport, ' +
      'is HTTP 403',
    async () => {
      const starter = await harness.account({ activated: false, plan: 'builder' });
      const client = await v1Client(starter.token);
      for (let i = 0; i < 3; i++)
        assert.equal(
          (await send(client, userMessage('audit this claim', { data: { domainRoute: ['resolve'] } }))).status?.state,
          TaskState.TASK_STATE_COMPLETED,
        );
      for (let i = 0; i < 2; i++)
        assert.equal(
          (
            await harness.call('POST', '/v1/orchestrator/run', {
              token: starter.token,
              body: { request: 'audit this claim', domainRoute: ['resolve'] },
            })
          ).status,
          200,
        );
      await assert.rejects(
        send(client, userMessage('audit this claim', { data: { domainRoute: ['resolve'] } })),
        (err: any) => /403/.test(err.message) && /activate/.test(err.message),
      );
      const readOnly = await harness.account({ scopes: ['runs:read'] });
      await assert.rejects(
        send(await v1Client(readOnly.token), userMessage('audit this claim')),
        (err: any) => /403/.test(err.message) && /runs:write/.test(err.message),
      );
    },
  );

  it('the 0.3 client: message/send, message/stream, tasks/get and tasks/cancel on the same runs', async () => {
    const client = await v03Client(a.token);
    const task = await send(
      client,
      userMessage('find the cheapest espresso machine under $250', { data: { domainRoute: ['hunt'] } }),
    );
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal((await client.getTask({ tenant: '', id: task.id })).id, task.id);
    const events = await collect(
      client.sendMessageStream({
        tenant: '',
        message: userMessage('audit this claim', { data: { domainRoute: ['resolve'] } }),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    assert.equal((events.at(-1)!.payload!.value as any).status.state, TaskState.TASK_STATE_COMPLETED);
    const waiting = await send(client, userMessage('shortlist espresso machines under $250 so I can choose one'));
    assert.equal(waiting.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    assert.equal(
      (await client.cancelTask({ tenant: '', id: waiting.id, metadata: undefined })).status?.state,
      TaskState.TASK_STATE_CANCELED,
    );
    await assert.rejects((await v03Client(b.token)).getTask({ tenant: '', id: task.id }), (err: any) =>
      /not found/i.test(err.message),
    );
  });

  it('the A2A-Version header picks the method names; an unknown version is refused', async () => {
    const call = (method: string, version?: string) =>
      harness.call('POST', '/a2a', {
        token: a.token,
        body: { jsonrpc: '2.0', id: 7, method, params: { id: 'run_missing' } },
        headers: version ? { 'a2a-version': version } : {},
      });
    assert.equal((await call('GetTask', '1.0')).body.error.code, -32001);
    assert.equal((await call('tasks/get')).body.error.code, -32001);
    assert.equal((await call('tasks/get', '1.0')).body.error.code, -32601);
    const unknown = await call('GetTask', '2.0');
    assert.equal(unknown.status, 200);
    assert.equal(unknown.body.error.code, -32009);
  });
});
