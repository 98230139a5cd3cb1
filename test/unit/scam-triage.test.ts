import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { lookalikeOf, registrableDomain } from '../../jobs/resolve/lookalike.js';
import { analyseClaim } from '../../jobs/resolve/triage.js';
import { triageClaim } from '../../jobs/resolve/triage-service.js';
import { createLogger } from '../../shared/log.js';
import { RULE_IDS } from '../../jobs/resolve/schemas.js';
import { RULE_DOCS } from '../../jobs/resolve/triage-rules.js';
import { SCAM_CORPUS } from '../fixtures/scam-corpus.js';
import { harness } from '../support/harness.js';

const flagged = (severity: string) => ['medium', 'high', 'critical'].includes(severity);

describe('scam triage (pure analysis)', () => {
  it(`rates the labelled corpus (${SCAM_CORPUS.length} claims) with precision and recall of at least 0.85`, () => {
    assert.ok(
      SCAM_CORPUS.length >= 40 &&
        SCAM_CORPUS.filter((c) => c.scam).length >= 20 &&
        SCAM_CORPUS.filter((c) => !c.scam).length >= 20,
    );
    let tp = 0,
      fp = 0,
      fn = 0;
    const wrong: string[] = [];
    for (const c of SCAM_CORPUS) {
      const t = analyseClaim({ claim: c.claim, documents: c.documents });
      const hit = flagged(t.risk.severity);
      if (hit && c.scam) tp++;
      if (hit && !c.scam) fp++;
      if (!hit && c.scam) fn++;
      if (hit !== c.scam)
        wrong.push(`${c.scam ? 'missed' : 'false alarm'}: ${c.kind} (${t.risk.label}/${t.risk.severity})`);
      if (!c.scam) assert.ok(['likelyLegitimate', 'insufficientEvidence'].includes(t.risk.label) || hit, c.kind);
    }
    const precision = tp / (tp + fp),
      recall = tp / (tp + fn);
    console.log(
      `      scam triage corpus: precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)} (${tp} ` +
        `caught, ${fp} false alarms, ${fn} missed)${wrong.length ? `\n      ${wrong.join('\n      ')}` : ''}`,
    );
    assert.ok(precision >= 0.85, `precision ${precision}`);
    assert.ok(recall >= 0.85, `recall ${recall}`);
  });

  it('every rule id is documented: in the rule table and in docs/api/cases-and-triage.md with its trigger', () => {
    const doc = readFileSync(new URL('../../docs/api/cases-and-triage.md', import.meta.url), 'utf8');
    for (const id of RULE_IDS) {
      assert.ok(RULE_DOCS[id]?.trigger, id);
      assert.ok(
        doc.includes(`| \`${id}\` | ${RULE_DOCS[id].weight} |`),
        `docs/api/cases-and-triage.md documents ${id}`,
      );
    }
  });

  it('the tax-office example: likelyScam/high with four signals, each with its exact span and taxonomy', () => {
    const claim = 'Is this text from the tax office a scam? Pay 300 USD in gift cards today or you will be arrested';
    const t = analyseClaim({ claim });
    assert.deepEqual([t.risk.label, t.risk.severity], ['likelyScam', 'high']);
    assert.deepEqual(t.evidenceMap.map((e) => e.ruleId).sort(), [
      'impersonation.agency',
      'pay.giftCard',
      'pressure.deadline',
      'threat.arrest',
    ]);
    for (const e of t.evidenceMap) assert.equal(claim.slice(e.span.start, e.span.end), e.span.text, e.ruleId);
    assert.deepEqual(t.evidenceMap.find((e) => e.ruleId === 'impersonation.agency')!.span.text, 'tax office');
    assert.equal(t.evidenceMap.find((e) => e.ruleId === 'threat.arrest')!.ic3Category, 'extortion');
    assert.deepEqual(t.taxonomy.ftcSigns.sort(), [
      'payInSpecificWay',
      'pressureToActNow',
      'pretendsToBeKnownOrganization',
      'problemOrPrize',
    ]);
    assert.equal(t.nextAction, 'requestHumanReview');
    assert.ok(t.missingEvidence.some((m) => m.kind === 'callBack' && m.decisive));
  });

  it(
    'a disclaimer is not a request ("we will never ask for your code"); "do not hang up or legal action" still ' +
      'threatens',
    () => {
      const notice = analyseClaim({
        claim: 'Chase: your statement is ready. We will never ask for your password or one-time code.',
      });
      assert.ok(!notice.evidenceMap.some((e) => e.ruleId === 'credentials.request'));
      const threat = analyseClaim({ claim: 'Do not hang up or legal action will be taken against you.' });
      assert.deepEqual(threat.evidenceMap.map((e) => e.ruleId).sort(), ['secrecy.request', 'threat.arrest']);
    },
  );

  it('confidence falls when the missing evidence is what would decide; a bare question is insufficientEvidence', () => {
    const bare = analyseClaim({ claim: 'Is this a scam?' });
    assert.deepEqual(
      [bare.risk.label, bare.risk.severity, bare.nextAction],
      ['insufficientEvidence', 'none', 'provideMoreEvidence'],
    );
    const unsettled = analyseClaim({ claim: 'Someone from the bank fraud department texted me to move money.' });
    const settled = analyseClaim({
      claim: 'Invoice INV-2025-0142 from Brightline Consulting for $1,800.00 due 31 March 2025.',
      documents: ['Invoice INV-2025-0142\nPayee: Brightline Consulting LLC\nAmount due: $1,800.00'],
    });
    assert.equal(settled.risk.label, 'likelyLegitimate');
    assert.ok(unsettled.missingEvidence.filter((m) => m.decisive).length > 0);
    assert.ok(unsettled.confidence < settled.confidence, `${unsettled.confidence} < ${settled.confidence}`);
  });
});

describe('scam triage: contradictions cite both spans', () => {
  const cases: Array<[string, string, string[], string, string]> = [
    ['amount', 'I was billed 1,200 EUR', ['Invoice total: 1,250.00 EUR'], '1,200 EUR', '1,250.00 EUR'],
    ['currency', 'The quote was 300 USD', ['Quote: 300 EUR'], '300 USD', '300 EUR'],
    ['date', 'The payment is due on 14 March 2025', ['Due date: 21 March 2025'], 'on 14 March 2025', '21 March 2025'],
    ['name', 'Name: Jane Doe', ['Invoice to: John Smith\nTotal: 10 USD'], 'Jane Doe', 'John Smith'],
    ['payee', 'Payee: Acme GmbH', ['Payee: Acme Trading Ltd\nTotal: 10 EUR'], 'Acme GmbH', 'Acme Trading Ltd'],
    [
      'bankDetails',
      'Pay to IBAN DE89 3704 0044 0532 0130 00',
      ['IBAN GB33BUKB20201555555555'],
      'DE89 3704 0044 0532 0130 00',
      'GB33BUKB20201555555555',
    ],
    [
      'domain',
      'Mail from billing@acme.com',
      ['Sent from invoices@acme-billing.net'],
      'billing@acme.com',
      'invoices@acme-billing.net',
    ],
    [
      'paymentMethod',
      'They want payment by bank transfer',
      ['Please pay by credit card'],
      'bank transfer',
      'credit card',
    ],
  ];
  for (const [kind, claim, documents, first, second] of cases) {
    it(`${kind}: claim versus document`, () => {
      const c = analyseClaim({ claim, documents }).contradictions.find((x) => x.kind === kind);
      assert.ok(c, `no ${kind} contradiction`);
      assert.deepEqual(
        [c.between, c.first.source, c.first.span.text, c.second.source, c.second.span.text],
        ['claimVsDocument', 'claim', first, 'document[0]', second],
      );
      assert.equal(claim.slice(c.first.span.start, c.first.span.end), first);
      assert.equal(documents[0]!.slice(c.second.span.start, c.second.span.end), second);
    });
  }

  it('documents versus each other: changed bank details and payee, and no contradiction where they agree', () => {
    const t = analyseClaim({
      claim: 'Which account is right?',
      documents: [
        'Payee: Contoso Parts GmbH\nIBAN DE89 3704 0044 0532 0130 00\nTotal: 500.00 EUR',
        'Payee: Contoso Parts Holding\nIBAN GB82 WEST 1234 5698 7654 32\nTotal: 500.00 EUR',
      ],
    });
    assert.deepEqual(
      t.contradictions.map((c) => [c.kind, c.between, c.first.source, c.second.source]),
      [
        ['payee', 'documentVsDocument', 'document[0]', 'document[1]'],
        ['bankDetails', 'documentVsDocument', 'document[0]', 'document[1]'],
      ],
    );
    assert.ok(
      t.evidenceMap.some(
        (e) => e.ruleId === 'contradiction.bankDetails' && e.span.text === 'GB82 WEST 1234 5698 7654 32',
      ),
    );
    assert.equal(t.nextAction, 'requestHumanReview');
  });
});

describe('scam triage: lookalike domains', () => {
  const lookalikes: Array<[string, string, string]> = [
    ['https://раypal.com/login', 'paypal.com', 'unicodeConfusable'],
    ['xn--pypal-4ve.com', 'paypal.com', 'unicodeConfusable'],
    ['https://аpple.com-id.support/signin', 'apple.com', 'unicodeConfusable'],
    ['rnicrosoft.com', 'microsoft.com', 'asciiTrick'],
    ['paypa1.com', 'paypal.com', 'asciiTrick'],
    ['amaz0n.co.uk', 'amazon.com', 'asciiTrick'],
    ['vvhatsapp.com', 'whatsapp.com', 'asciiTrick'],
    ['paypal-secure-login.com', 'paypal.com', 'brandInName'],
    ['coinbasse.com', 'coinbase.com', 'editDistance'],
  ];
  for (const [input, imitates, how] of lookalikes) {
    it(`${input} imitates ${imitates} (${how}) and the evidence says "lookalike"`, () => {
      const host = input.replace(/^https?:\/\//, '').split('/')[0]!;
      const found = lookalikeOf(registrableDomain(input)!, host);
      assert.deepEqual([found?.imitates, found?.how], [imitates, how]);
      const t = analyseClaim({ claim: 'Is this link safe?', urls: [input] });
      const e = t.evidenceMap.find((x) => x.ruleId === 'lookalike.domain');
      assert.ok(e && e.source === input && /^lookalike: /.test(e.detail!), JSON.stringify(t.evidenceMap));
    });
  }
  it('the originals and ordinary domains are not flagged', () => {
    for (const d of [
      'paypal.com',
      'www.paypal.com',
      'microsoft.com',
      'login.microsoftonline.com',
      'amazon.co.uk',
      'amazon.de',
      'google.de',
      'whatsapp.com',
      'coinbase.com',
      'apple.com',
      'example.com',
      'mail.ru',
      'github.com',
      'hsbc.co.uk',
    ]) {
      assert.equal(lookalikeOf(registrableDomain(d)!, d), null, d);
    }
  });
});

describe('scam triage: optional LLM', () => {
  let server: http.Server;
  let content = '';
  let url = '';
  before(async () => {
    server = http.createServer((_req, res) => {
      if (content === 'fail') return void res.writeHead(500).end('down');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const deps = () => ({
    config: harness.configWith({
      LLM_BASE_URL: url,
      LLM_MODEL: 'm',
      LLM_TIMEOUT_MS: '2000',
      AWP_ALLOW_PRIVATE_EGRESS: '1',
    }),
    log: createLogger('silent'),
  });
  const claim = 'Grandma, it is me, I crashed the car and need bail money, pay 300 USD in gift cards today';

  it('adds signals whose quote is in the source, drops invented quotes, removes nothing', async () => {
    content = JSON.stringify({
      signals: [
        { source: 'claim', quote: 'Grandma, it is me', signal: 'grandparent scam opener' },
        { source: 'claim', quote: 'not in the text', signal: 'made up' },
      ],
    });
    const rulesOnly = analyseClaim({ claim });
    const t = await triageClaim(deps(), { claim });
    assert.equal(t.llm, 'added');
    const added = t.evidenceMap.filter((e) => e.origin === 'llm');
    assert.deepEqual(
      added.map((e) => [e.ruleId, e.span.text, e.span.start]),
      [['llm.signal', 'Grandma, it is me', 0]],
    );
    assert.deepEqual(
      t.evidenceMap.filter((e) => e.origin === 'rule'),
      rulesOnly.evidenceMap,
    );
  });

  it('falls back to the rules on any error', async () => {
    content = 'fail';
    const t = await triageClaim(deps(), { claim });
    assert.equal(t.llm, 'fellBack');
    assert.deepEqual(t.evidenceMap, analyseClaim({ claim }).evidenceMap);
  });
});
