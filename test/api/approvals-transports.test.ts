import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import {
  type Client as A2AClient,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  createAuthenticatingFetchWithRetry,
} from '@a2a-js/sdk/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { harness } from '../support/harness.js';
import { member } from '../support/approvers.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };

/** A prod delivery run the account's owner submitted over HTTP, resting at its deploy gate. */
async function gatedRun(token: string): Promise<string> {
  const res = await harness.call('POST', '/v1/delivery/run', {
    token,
    body: { service: 'web', environment: 'prod', version: '4.0.0', artifacts: green },
  });
  assert.equal(res.body.status, 'awaitingApproval', res.text);
  return res.body.runId;
}

/** The audit entries of a run, as `action:memberId`. */
async function auditOfRun(token: string, runId: string): Promise<string[]> {
  const log = await harness.call('GET', `/v1/audit/log?resourceType=run&resourceId=${runId}`, { token });
  assert.equal(log.status, 200, log.text);
  return log.body.entries.map((e: { action: string; memberId: string }) => `${e.action}:${e.memberId}`);
}

async function mcp(token: string): Promise<Client> {
  const client = new Client({ name: 'awp-approvals', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${harness.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

async function a2a(token: string): Promise<A2AClient> {
  const fetchImpl = createAuthenticatingFetchWithRetry(fetch, {
    headers: async (): Promise<Record<string, string>> => ({ Authorization: `Bearer ${token}` }),
    shouldRetryWithHeaders: async () => undefined,
  });
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
  });
  return new ClientFactory(options).createFromUrl(harness.url);
}

/** An answer on a task: one data part, as an A2A client replies to input-required. */
function answer(taskId: string, data: Record<string, unknown>): Message {
  const part = {
    content: { $case: 'data' as const, value: data },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId,
    role: Role.ROLE_USER,
    parts: [part],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const sendA2A = (client: A2AClient, message: Message) =>
  client.sendMessage({
    tenant: '',
    message,
    metadata: undefined,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: false },
  }) as Promise<Task>;

describe('approvals over MCP and A2A decide as over HTTP', () => {
  it('MCP runs.resume: the submitter is refused (selfApproval), a developer 403, an approver approves', async () => {
    const a = await harness.account();
    const dev = await member(a.accountId, 'developer');
    const approver = await member(a.accountId, 'approver');
    const runId = await gatedRun(a.token);
    const clients = await Promise.all([mcp(a.token), mcp(dev.token), mcp(approver.token)]);
    const [own, developer, approving] = clients;
    try {
      const got = await own!.callTool({ name: 'runs.get', arguments: { runId } });
      const shown = (got.structuredContent as any).run.waitpoint;
      assert.deepEqual([shown.kind, typeof shown.expiresAt], ['awaitingApproval', 'string'], 'runs.get: the expiry');
      const self = await own!.callTool({ name: 'runs.resume', arguments: { runId, approved: true } });
      assert.equal(self.isError, true, JSON.stringify(self));
      assert.equal((self.structuredContent as any).error, 'selfApproval');
      assert.equal((self.structuredContent as any).details.gate, 'deploy');
      const refused = await developer!.callTool({ name: 'runs.resume', arguments: { runId, approved: true } });
      assert.equal(refused.isError, true, JSON.stringify(refused));
      assert.equal((refused.structuredContent as any).error, 'forbidden');
      assert.match((refused.structuredContent as any).message, /approvals:write/);
      const still = await harness.call('GET', `/v1/runs/${runId}`, { token: a.token });
      assert.equal(still.body.run.status, 'awaitingApproval', 'neither refusal moved the run');
      const ok = await approving!.callTool({ name: 'runs.resume', arguments: { runId, approved: true } });
      assert.ok(!ok.isError, JSON.stringify(ok));
      assert.equal((ok.structuredContent as any).runId, runId);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
    const actions = await auditOfRun(a.token, runId);
    assert.ok(actions.includes(`approval.granted:${approver.memberId}`), actions.join());
    assert.ok(actions.includes(`approval.refused:${dev.memberId}`), actions.join());
    assert.equal(actions.filter((x) => x.startsWith('approval.granted')).length, 1, actions.join());
  });

  it('A2A reply on the waiting task: submitter gets selfApproval, developer 403, approver approves', async () => {
    const a = await harness.account();
    const dev = await member(a.accountId, 'developer');
    const approver = await member(a.accountId, 'approver');
    const runId = await gatedRun(a.token);
    const own = await a2a(a.token);
    const waiting = await own.getTask({ tenant: '', id: runId });
    assert.equal(waiting.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    const shown = (waiting.status!.message!.parts[1]!.content as any).value.waitpoint;
    assert.match(shown.expiresAt, /^\d{4}-\d\d-\d\dT/, 'the task shows when the approval fails closed');
    // A self-approval refuses the operation (UnsupportedOperation, -32004) with the service's code.
    await assert.rejects(sendA2A(own, answer(runId, { approved: true })), (err: any) => {
      assert.equal(err.name, 'UnsupportedOperationError', `${err.name}: ${err.message}`);
      assert.equal(err.envelopeCode, -32004);
      assert.match(err.message, /may not approve its own deploy gate/);
      assert.equal(err.data[0].metadata.awpError, 'selfApproval');
      return true;
    });
    // A missing scope is the HTTP layer's answer, whatever the protocol (as for any A2A call).
    await assert.rejects(sendA2A(await a2a(dev.token), answer(runId, { approved: true })), (err: any) => {
      assert.match(err.message, /403/);
      assert.match(err.message, /approvals:write/);
      return true;
    });
    const raw = await harness.call('POST', '/a2a', {
      token: a.token,
      headers: { 'a2a-version': '0.3' },
      body: {
        jsonrpc: '2.0',
        id: 9,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: randomUUID(),
            role: 'user',
            taskId: runId,
            parts: [{ kind: 'data', data: { approved: true } }],
          },
        },
      },
    });
    assert.equal(raw.status, 200, raw.text);
    assert.equal(raw.body.error.code, -32004, raw.text);
    assert.equal(raw.body.error.data.error, 'selfApproval', 'a 0.3 client reads the code in data');
    assert.equal((await own.getTask({ tenant: '', id: runId })).status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = await sendA2A(await a2a(approver.token), answer(runId, { approved: true }));
    assert.equal(done.id, runId);
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(done.status));
    const actions = await auditOfRun(a.token, runId);
    assert.ok(actions.includes(`approval.granted:${approver.memberId}`), actions.join());
  });
});
