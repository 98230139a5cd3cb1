import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { member, ownerOf } from '../support/approvers.js';
import { seedCatalog } from '../support/runs.js';
import { openSse } from '../support/sse.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };

/** Every inbox route: success, 400, 401, 404, and another account's item answering 404. */
describe('inbox API: list, item, assign, claim, release, answer, files, notification choices, stream', function () {
  this.timeout(60_000);
  let a: { token: string; accountId: string };
  let b: { token: string; accountId: string };
  let approver: { memberId: string; token: string };
  let developer: { memberId: string; token: string };
  let viewer: { memberId: string; token: string };
  let approvalId: string;
  let choiceId: string;
  let missionId: string;
  const call = (method: string, path: string, token?: string, body?: unknown) =>
    harness.call(method, path, { ...(token ? { token } : {}), ...(body === undefined ? {} : { body }) });

  before(async () => {
    a = await harness.account();
    b = await harness.account();
    approver = await member(a.accountId, 'approver');
    developer = await member(a.accountId, 'developer');
    viewer = await member(a.accountId, 'viewer');
    await seedCatalog(a.accountId);
    const deploy = await call('POST', '/v1/delivery/run', a.token, {
      service: 'web',
      environment: 'prod',
      version: '3.1.0',
      artifacts: green,
    });
    assert.equal(deploy.body.status, 'awaitingApproval', deploy.text);
    const choose = await call('POST', '/v1/orchestrator/run', a.token, {
      request: 'shortlist espresso machines under $250 so I can choose one',
    });
    assert.equal(choose.body.status, 'NEEDS_INPUT', choose.text);
    const task = await call('POST', '/v1/tasks', a.token, { domain: 'proxy', inData: { want: 'a plumber' } });
    const made = await call('POST', '/v1/proxy/missions', a.token, {
      taskId: task.body.task.taskId,
      kind: 'call',
      reason: 'humanReviewerNeeded',
      task: 'Read the lease and say whether the deposit clause is lawful',
      proofReq: ['summary'],
    });
    assert.equal(made.status, 201, made.text);
    missionId = made.body.proxyId;
    const list = await call('GET', '/v1/inbox', a.token);
    approvalId = list.body.items.find((i: any) => i.runId === deploy.body.runId).itemId;
    choiceId = list.body.items.find((i: any) => i.runId === choose.body.runId).itemId;
  });

  it('GET /v1/inbox lists choices, approvals and missions newest first, with filters and a cursor', async () => {
    const all = await call('GET', '/v1/inbox', a.token);
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body.items.map((i: any) => i.kind).sort(), ['approval', 'choice', 'mission']);
    const approval = all.body.items.find((i: any) => i.kind === 'approval');
    assert.deepEqual(
      [approval.domain, approval.gate, approval.link],
      ['delivery', 'deploy', `/dashboard/#/inbox/${approvalId}`],
    );
    assert.ok(approval.expiresAt && approval.submittedBy, JSON.stringify(approval));
    const byKind = await call('GET', '/v1/inbox?kind=mission', a.token);
    assert.deepEqual(
      byKind.body.items.map((i: any) => i.itemId),
      [missionId],
    );
    const byDomain = await call('GET', '/v1/inbox?domain=hunt', a.token);
    assert.deepEqual(
      byDomain.body.items.map((i: any) => i.itemId),
      [choiceId],
    );
    assert.equal((await call('GET', '/v1/inbox?olderThan=1d', a.token)).body.items.length, 0, 'nothing is a day old');
    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call('GET', `/v1/inbox?limit=1${cursor ? `&cursor=${cursor}` : ''}`, a.token);
      assert.equal(page.status, 200, page.text);
      pages.push(...page.body.items.map((i: any) => i.itemId));
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.deepEqual(
      pages,
      all.body.items.map((i: any) => i.itemId),
      'the pages are the list, once each',
    );
  });

  it('GET /v1/inbox: 400 for a bad filter or cursor, 401 without a token, another account sees none', async () => {
    for (const q of ['kind=task', 'olderThan=soon', 'cursor=bm9wZQ', 'limit=0'])
      assert.equal((await call('GET', `/v1/inbox?${q}`, a.token)).status, 400, q);
    assert.equal((await call('GET', '/v1/inbox')).status, 401);
    assert.deepEqual((await call('GET', '/v1/inbox', b.token)).body.items, []);
  });

  it('GET /v1/inbox/{itemId}: each kind with what is needed to answer it and its answer schema', async () => {
    const approval = (await call('GET', `/v1/inbox/${approvalId}`, a.token)).body.item;
    assert.deepEqual(
      approval.actions.map((x: any) => [x.action, x.approves]),
      [
        ['approve', true],
        ['reject', false],
      ],
    );
    assert.deepEqual(
      approval.answerSchema.oneOf.map((b: any) => b.properties.action.const),
      ['approve', 'reject'],
    );
    assert.deepEqual(approval.approval.plan.remaining, ['delivery']);
    assert.match(approval.approval.ifApproved[0], /Deploys web@3\.1\.0 to prod/);
    const choice = (await call('GET', `/v1/inbox/${choiceId}`, a.token)).body.item;
    const offered = choice.choice.candidates.map((c: any) => c.itemId);
    assert.ok(offered.length > 1, JSON.stringify(choice.choice));
    const branch = choice.answerSchema.oneOf ?? [choice.answerSchema];
    assert.deepEqual(branch[0].properties.itemId.enum, offered, 'the choice offers exactly its candidates');
    const mission = (await call('GET', `/v1/inbox/${missionId}`, a.token)).body.item;
    assert.deepEqual(mission.mission.proofItems, [{ item: 'summary', required: true, provided: false }]);
    const outcome = mission.answerSchema.properties.data.properties.outcome;
    assert.ok(outcome.properties.proof.properties.summary.oneOf, 'each proof item is a note or a file');
    assert.deepEqual(outcome.allOf[0].then.properties.proof.required, ['summary']);
  });

  it('GET /v1/inbox/{itemId}: 404 unknown or foreign, 400 for an id too long, 401 without a token', async () => {
    assert.equal((await call('GET', `/v1/inbox/${approvalId}`, b.token)).status, 404);
    assert.equal((await call('GET', '/v1/inbox/wait_0000000000000000000000000000000a', a.token)).status, 404);
    assert.equal((await call('GET', `/v1/inbox/${'x'.repeat(201)}`, a.token)).status, 400);
    assert.equal((await call('GET', `/v1/inbox/${approvalId}`)).status, 401);
  });

  it('POST /v1/inbox/{itemId}/assign: to an approver; the submitter is 409 selfApproval; 400 for others', async () => {
    const ok = await call('POST', `/v1/inbox/${approvalId}/assign`, a.token, { memberId: approver.memberId });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.item.assignee, approver.memberId);
    const mine = await call('GET', '/v1/inbox?assignee=me', approver.token);
    assert.deepEqual(
      mine.body.items.map((i: any) => i.itemId),
      [approvalId],
    );
    const unassigned = await call('GET', '/v1/inbox?assignee=none', a.token);
    assert.ok(!unassigned.body.items.some((i: any) => i.itemId === approvalId));
    const self = await call('POST', `/v1/inbox/${approvalId}/assign`, a.token, {
      memberId: await ownerOf(a.accountId),
    });
    assert.deepEqual([self.status, self.body.error], [409, 'selfApproval']);
    const dev = await call('POST', `/v1/inbox/${approvalId}/assign`, a.token, { memberId: developer.memberId });
    assert.equal(dev.status, 400, 'a developer does not approve');
    assert.equal((await call('POST', `/v1/inbox/${approvalId}/assign`, a.token, {})).status, 400);
    const nobody = await call('POST', `/v1/inbox/${approvalId}/assign`, a.token, { memberId: 'mem_nobody' });
    assert.equal(nobody.status, 404);
    assert.equal((await call('POST', `/v1/inbox/${approvalId}/assign`, b.token, { memberId: null })).status, 404);
    assert.equal((await call('POST', `/v1/inbox/${approvalId}/assign`, undefined, { memberId: null })).status, 401);
    assert.equal(
      (await call('POST', `/v1/inbox/${approvalId}/assign`, developer.token, { memberId: null })).status,
      403,
    );
    const log = await call('GET', `/v1/audit/log?resourceType=inboxItem&resourceId=${approvalId}`, a.token);
    assert.deepEqual(
      log.body.entries.map((e: any) => e.action),
      ['inbox.assigned'],
    );
  });

  it('POST /v1/inbox/{itemId}/claim and /release: another member’s claim is 409 until released', async () => {
    const claimed = await call('POST', `/v1/inbox/${choiceId}/claim`, developer.token);
    assert.equal(claimed.status, 200, claimed.text);
    assert.equal(claimed.body.item.claimedBy, developer.memberId);
    assert.ok(Date.parse(claimed.body.item.claimExpiresAt) > Date.now());
    const taken = await call('POST', `/v1/inbox/${choiceId}/claim`, a.token);
    assert.deepEqual([taken.status, taken.body.details.claimedBy], [409, developer.memberId]);
    const answer = await call('POST', `/v1/inbox/${choiceId}/answer`, a.token, { action: 'buy', itemId: 'x' });
    assert.equal(answer.status, 409, 'nobody answers over a live claim');
    assert.equal((await call('POST', `/v1/inbox/${choiceId}/claim`, viewer.token)).status, 403);
    assert.equal((await call('POST', `/v1/inbox/${choiceId}/release`, developer.token)).status, 200);
    assert.equal((await call('POST', `/v1/inbox/${choiceId}/release`, developer.token)).status, 409, 'not claimed');
    assert.equal((await call('POST', `/v1/inbox/${choiceId}/claim`, b.token)).status, 404);
    assert.equal((await call('POST', `/v1/inbox/${choiceId}/release`, b.token)).status, 404);
    assert.equal((await call('POST', `/v1/inbox/${choiceId}/claim`)).status, 401);
    const bad = await harness.call('POST', `/v1/inbox/${choiceId}/claim`, {
      token: a.token,
      raw: '{',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(bad.status, 400);
  });

  it('POST /v1/inbox/{itemId}/answer: 400 off the schema, 404, 401; a choice answered resumes its run', async () => {
    const item = (await call('GET', `/v1/inbox/${choiceId}`, a.token)).body.item;
    const action = item.actions[0].action;
    for (const body of [
      {},
      { action, itemId: 'not-offered' },
      { action: 'settle', itemId: item.choice.candidates[0].itemId },
    ]) {
      const res = await call('POST', `/v1/inbox/${choiceId}/answer`, a.token, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(Array.isArray(res.body.details) && res.body.details.length > 0, res.text);
    }
    assert.equal((await call('POST', `/v1/inbox/${choiceId}/answer`, a.token, { wrong: 1 })).status, 400);
    assert.equal((await call('POST', `/v1/inbox/${choiceId}/answer`, b.token, { action })).status, 404);
    assert.equal((await call('POST', `/v1/inbox/${choiceId}/answer`, undefined, { action })).status, 401);
    const chosen = item.choice.candidates[0].itemId;
    const res = await call('POST', `/v1/inbox/${choiceId}/answer`, a.token, { action, itemId: chosen });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.kind, res.body.runId], ['choice', item.runId]);
    assert.equal((await call('GET', `/v1/inbox/${choiceId}`, a.token)).status, 404, 'answered: no longer waiting');
    assert.equal((await call('POST', `/v1/inbox/${choiceId}/answer`, a.token, { action, itemId: chosen })).status, 404);
  });

  it('GET /v1/inbox/{itemId}/files/{sha256}: 404 unknown or foreign, 400 for a bad id, 401', async () => {
    const hash = 'a'.repeat(64);
    assert.equal((await call('GET', `/v1/inbox/${missionId}/files/${hash}`, a.token)).status, 404);
    assert.equal((await call('GET', `/v1/inbox/${missionId}/files/${hash}`, b.token)).status, 404);
    assert.equal((await call('GET', `/v1/inbox/${missionId}/files/${'x'.repeat(201)}`, a.token)).status, 400);
    assert.equal((await call('GET', `/v1/inbox/${missionId}/files/${hash}`)).status, 401);
  });

  it('GET and PUT /v1/members/me/notifications: kinds × channels, 400 off the shape, 401', async () => {
    const before = await call('GET', '/v1/members/me/notifications', approver.token);
    assert.equal(before.status, 200, before.text);
    assert.deepEqual(before.body.choices.approval, { email: true, chat: true }, 'everything is on until chosen');
    const choices = {
      choice: { email: false, chat: false },
      approval: { email: true, chat: false },
      mission: { email: false, chat: true },
    };
    const put = await call('PUT', '/v1/members/me/notifications', approver.token, choices);
    assert.equal(put.status, 200, put.text);
    assert.deepEqual((await call('GET', '/v1/members/me/notifications', approver.token)).body.choices, choices);
    assert.deepEqual((await call('GET', '/v1/members/me/notifications', a.token)).body.choices.approval, {
      email: true,
      chat: true,
    });
    const bad = await call('PUT', '/v1/members/me/notifications', approver.token, { choice: { email: 'yes' } });
    assert.equal(bad.status, 400);
    assert.equal((await call('GET', '/v1/members/me/notifications')).status, 401);
    assert.equal((await call('PUT', '/v1/members/me/notifications', undefined, choices)).status, 401);
  });

  it('GET /v1/inbox/events streams the inbox: ready with the items, then a change; 401 without a token', async () => {
    assert.equal((await call('GET', '/v1/inbox/events')).status, 401);
    const stream = await openSse('/v1/inbox/events', a.token);
    await stream.until((f) => f.event === 'ready');
    assert.ok(stream.text.includes(missionId), 'the open items are in ready');
    await call('POST', `/v1/inbox/${missionId}/claim`, a.token);
    await stream.until((f) => f.event === 'item.changed');
    assert.match(stream.text, new RegExp(`"itemId":"${missionId}"`));
    stream.close();
  });
});
