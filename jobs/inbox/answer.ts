import { createHash } from 'node:crypto';
import type { TSchema } from '@sinclair/typebox';
import type { Deps } from '../../shared/deps.js';
import { invalidPayload, notFound } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { check } from '../../shared/validation.js';
import { answerApproves } from '../approval-gates.js';
import { actorOf, recordAudit } from '../audit/index.js';
import { resumeRun } from '../orchestrator/index.js';
import { submitOutcome, type ProxyOutcome } from '../proxy/index.js';
import { sniffType } from './files.js';
import { deleteFiles, fileWithData, insertFile, type FileRow } from './repository.js';
import { MAX_FILE_BYTES, type AnswerBody } from './schemas.js';
import { assertMayAnswer, fetchItem, refuseOthersClaim, type LoadedItem } from './service.js';
import { publishChange } from './stream.js';
import { fileView } from './views.js';

type ProofValue = { note: string } | { file: { name: string; contentType: string; contentBase64: string } };

/**
 * Stores the files of a mission answer's proof (each checked: base64, at most MAX_FILE_BYTES decoded, its bytes of
 * the type it claims) and gives the proof as the mission keeps it: a note as given, a file as its SHA-256, name,
 * type, size and where to fetch it. Returns the hashes it stored anew, to be removed if the outcome is refused.
 */
async function storeProof(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  itemId: string,
  proof: Record<string, unknown>,
) {
  const kept: Record<string, unknown> = {};
  const added: string[] = [];
  const files: FileRow[] = [];
  for (const [item, raw] of Object.entries(proof)) {
    const value = raw as ProofValue;
    if ('note' in value) {
      kept[item] = { note: value.note };
      continue;
    }
    const where = `/data/outcome/proof/${item}/file`;
    const data = Buffer.from(value.file.contentBase64, 'base64');
    if (data.length === 0 || data.toString('base64').replace(/=+$/, '') !== value.file.contentBase64.replace(/=+$/, ''))
      throw invalidPayload(`proof item ${item}: contentBase64 is not base64`, [
        { path: `${where}/contentBase64`, message: 'not base64', keyword: 'contentEncoding' },
      ]);
    if (data.length > MAX_FILE_BYTES)
      throw invalidPayload(`proof item ${item}: the file is ${data.length} bytes; at most ${MAX_FILE_BYTES}`, [
        { path: `${where}/contentBase64`, message: `larger than ${MAX_FILE_BYTES} bytes`, keyword: 'maxLength' },
      ]);
    const sniffed = sniffType(data);
    if (sniffed !== value.file.contentType)
      throw invalidPayload(
        `proof item ${item}: the file says ${value.file.contentType}, but its bytes are ` +
          `${sniffed ?? 'of no type taken'}`,
        [{ path: `${where}/contentType`, message: `bytes are ${sniffed ?? 'unknown'}`, keyword: 'enum' }],
      );
    const sha256 = createHash('sha256').update(data).digest('hex');
    const row = {
      account_id: principal.accountId,
      item_id: itemId,
      sha256,
      proof_item: item,
      name: value.file.name,
      content_type: sniffed,
      size: data.length,
      created_by: principal.memberId ?? null,
    };
    if (await insertFile(deps.db, { ...row, data })) added.push(sha256);
    files.push({ ...row, created_at: new Date() });
    kept[item] = {
      file: { sha256, name: row.name, contentType: sniffed, size: data.length, href: fileView(files.at(-1)!).href },
    };
  }
  return { kept, added, files };
}

/**
 * Answers an item through the path its kind already has, never a second one: a choice or an approval resumes the
 * run (POST /v1/runs/{runId}/resume's path: the approval decision with separation of duties), a mission takes its
 * outcome (POST /v1/proxy/missions/{proxyId}/outcome's path, which resumes a run waiting on it). The body is checked
 * against the item's answer schema first (400 naming each field); another member's live claim is 409.
 */
export async function answerItem(deps: Deps, principal: Principal, itemId: string, body: AnswerBody) {
  const found: LoadedItem = await fetchItem(deps, principal, itemId);
  const item = found.detail;
  if (principal.memberId) refuseOthersClaim(found.assignment, principal.memberId);
  const errors = check(item.answerSchema as unknown as TSchema, body);
  if (errors.length > 0)
    throw invalidPayload(
      `The answer does not fit this ${item.kind}'s answer schema: ${errors[0]!.path} ${errors[0]!.message}`,
      errors,
    );
  let runStatus: string | null = null;
  let missionStatus: string | null = null;
  let files: FileRow[] = [];
  if (found.source === 'waitpoint') {
    const approved =
      item.kind === 'approval' ? (body.action ? answerApproves({ action: body.action }) : body.approved) : undefined;
    const run = await resumeRun(deps, principal, item.runId!, {
      action: body.action,
      itemId: body.itemId,
      approved,
      data: body.data ?? {},
      waitpointId: itemId,
    });
    runStatus = run.status;
  } else {
    assertMayAnswer(principal, 'mission');
    const outcome = ((body.data as { outcome?: unknown } | undefined)?.outcome ?? {}) as ProxyOutcome;
    const stored = await storeProof(deps, principal, itemId, (outcome.proof ?? {}) as Record<string, unknown>);
    files = stored.files;
    try {
      const ended = await submitOutcome(deps, principal, itemId, {
        ...outcome,
        ...(outcome.proof ? { proof: stored.kept } : {}),
      });
      missionStatus = ended.mission.status;
      runStatus = ended.run?.status ?? null;
    } catch (err) {
      await deleteFiles(deps.db, principal.accountId, itemId, stored.added);
      throw err;
    }
  }
  await recordAudit(deps.db, {
    ...actorOf(principal),
    action: 'inbox.answered',
    resourceType: 'inboxItem',
    resourceId: itemId,
    details: { kind: item.kind, runId: item.runId, action: body.action ?? null, files: files.map((f) => f.sha256) },
  });
  publishChange(deps, principal.accountId, itemId);
  return { itemId, kind: item.kind, runId: item.runId, runStatus, missionStatus, files: files.map(fileView) };
}

/** A proof file of the account's item, by its SHA-256 (404 for another account's or an unknown one). */
export async function readFile(deps: Pick<Deps, 'db'>, principal: Principal, itemId: string, sha256: string) {
  const row = /^[0-9a-f]{64}$/.test(sha256) ? await fileWithData(deps.db, principal.accountId, itemId, sha256) : null;
  if (!row?.data) throw notFound(`File ${sha256} of item ${itemId}`);
  return row as FileRow & { data: Buffer };
}
