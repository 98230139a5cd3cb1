import { pathParams, routeGroup, toolsGroup } from '../../shared/http/route-group.js';
import { defineRoute, Reply } from '../../shared/http/route-spec.js';
import {
  ChainLabelCreate,
  ChainLabelPage,
  ChainLabelReply,
  ChainTraceRequest,
  ChainTraceResult,
} from './chain-schemas.js';
import { Deleted } from '../../shared/schemas/common.js';
import { PolicyAuditRequest, PolicyAuditResult } from './policy-schemas.js';
import { policyAuditForClient } from './policy-service.js';
import { ScamTriageRequest, ScamTriageResult } from './schemas.js';
import { addChainLabel, chainLabelPage, chainLabelView, removeChainLabel } from './chain-labels.js';
import { traceForClient } from './chain-trace.js';
import { triageForClient } from './triage-service.js';

/** Default scopes of the domain's routes. */
export const scopes = { read: ['tools:use'], write: ['tools:use'] };
const r = routeGroup('resolve', scopes);
const tools = toolsGroup;
const toolsScopes = { write: ['tools:use'] };

export const routes = [
  r.post('/v1/resolve/scamTriage', 'Risk, evidence map, contradictions and missing evidence for a claim', {
    description:
      'Deterministic rules (FTC signs, IC3 categories; docs/api/cases-and-triage.md lists each rule id), ' +
      'lookalike domains, and contradictions between the claim and the documents, each citing its exact ' +
      'spans. A configured LLM may add signals, never remove them.',
    body: ScamTriageRequest,
    response: { 200: ScamTriageResult },
    countsAsWorkflow: true,
    mcpTool: 'resolve.scamTriage',
    handler: ({ body, principal, signal }, deps) => triageForClient(deps, principal.accountId, body, signal),
  }),
  r.post('/v1/resolve/policyAudit', 'Check policy rules against documents: met, broken or open, with the spans', {
    description:
      'Reads each rule as a check (amount limit, allowed or excluded vendors or countries, date limit, period, ' +
      'required documents; docs/api/cases-and-triage.md) and judges it by the spans that meet or break it. A rule ' +
      'it cannot read, or that no span decides, is open, never met. The resolve step runs the same check on ' +
      '`metadata.policyRules`.',
    body: PolicyAuditRequest,
    response: { 200: PolicyAuditResult },
    countsAsWorkflow: true,
    mcpTool: 'resolve.policyAudit',
    handler: ({ body, principal }, deps) => policyAuditForClient(deps, principal.accountId, body),
  }),
  tools.post('/v1/tools/chainTrace', 'Trace blockchain transactions, prepare a recovery assessment', {
    description:
      'Follows the funds of `txHash` (or from `address`) up to `depth` hops over the configured provider ' +
      '(CHAIN_EVM_RPC_URL: EVM JSON-RPC, native transfer and ERC-20 Transfer logs; CHAIN_BTC_ESPLORA_URL: an ' +
      'Esplora API), matches the addresses reached against your labels and says what can still be frozen or ' +
      'reported, citing hops. No provider for the chain: 422.',
    body: ChainTraceRequest,
    response: { 200: ChainTraceResult },
    countsAsWorkflow: true,
    mcpTool: 'tools.chainTrace',
    handler: ({ body, principal, signal }, deps) => traceForClient(deps, principal.accountId, body, signal),
  }),
  tools.post(
    '/v1/tools/chainTrace/labels',
    'Label an address (exchange, mixer, known scam, sanctioned, ...) for chain traces',
    {
      body: ChainLabelCreate,
      response: { 201: ChainLabelReply },
      mcpTool: 'tools.chainTraceAddLabel',
      handler: async ({ body, principal }, deps) =>
        new Reply(201, { ok: true, label: chainLabelView(await addChainLabel(deps, principal.accountId, body)) }),
    },
  ),
  tools.get('/v1/tools/chainTrace/labels', 'List your address labels', {
    list: true,
    response: { 200: ChainLabelPage },
    mcpTool: 'tools.chainTraceListLabels',
    handler: async ({ query, principal }, deps) => {
      const { rows, nextCursor } = await chainLabelPage(
        deps,
        principal.accountId,
        Number(query.limit ?? 50),
        query.cursor as string | undefined,
      );
      return { ok: true, labels: rows.map(chainLabelView), nextCursor };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/tools/chainTrace/labels/{labelId}',
    tag: 'tools',
    auth: 'bearer',
    scopes: toolsScopes.write,
    params: pathParams('/v1/tools/chainTrace/labels/{labelId}'),
    summary: 'Delete an address label',
    response: { 200: Deleted },
    handler: async ({ params, principal }, deps) => {
      await removeChainLabel(deps, principal.accountId, (params as { labelId: string }).labelId);
      return { ok: true };
    },
  }),
];
