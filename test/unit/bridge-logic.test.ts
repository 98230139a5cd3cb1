import assert from 'node:assert/strict';
import { minimatch } from 'minimatch';
import {
  connectorProblems,
  normalizeScopes,
  preflightStatus,
  readiness,
  resourceCovers,
  resourcePatternProblem,
  scopesCovering,
  scoreMatch,
  sessionCovers,
  type ConnectorShape,
} from '../../jobs/bridge/logic.js';
import { CONNECTORS, SESSIONS } from '../../jobs/bridge/machines.js';
import { readyConnectors } from '../../jobs/bridge/ready-connectors.js';
import { capabilityMatches, decide, policyMap, POLICY, PREFLIGHT_RULES } from '../../jobs/policy/table.js';
import { PREFLIGHT_CHECKS } from '../../jobs/policy/enums.js';

const GLOB = { dot: true, nobrace: true, noext: true, nonegate: true, nocomment: true };

describe('bridge registry logic', () => {
  describe('resource coverage', () => {
    const patterns = [
      '**',
      '*',
      'repos/**',
      'repos/*',
      'repos/*/*',
      'repos/acme/*',
      'repos/a*',
      'repos/**/issues',
      'a/?/c',
      'a/[bc]/d',
      'places:search*',
      'Accounts/*/Messages',
      'a/**',
      'a/**/c',
      'a/*/**',
    ];
    const names = [
      'repos',
      'a/b',
      'repos/acme',
      'repos/acme/web',
      'repos/acme/web/issues',
      'repos/.hidden',
      'a/b/c',
      'a/bb/c',
      'a/c/d',
      'places:searchText',
      'Accounts/AC1/Messages',
      'other/x',
      'repos/b',
    ];

    it('for a plain name, is exactly glob matching', () => {
      for (const p of patterns)
        for (const n of names) assert.equal(resourceCovers(p, n), minimatch(n, p, GLOB), `${p} vs ${n}`);
    });

    it('for two globs, accepts only what is provably inside', () => {
      const inside: Array<[string, string]> = [
        ['repos/**', 'repos/acme/*'],
        ['repos/**', 'repos/**'],
        ['**', 'x/**/y'],
        ['repos/*', 'repos/a*'],
        ['repos/*/*', 'repos/acme/*'],
        ['a/**/z', 'a/b/**/z'],
        ['repos/*', 'repos/[ab]*x*'],
      ];
      const outside: Array<[string, string]> = [
        ['repos/*', 'repos/**'],
        ['repos/a*', 'repos/*'],
        ['repos/acme/*', 'repos/*/*'],
        ['repos/**', '**'],
        ['a/*', 'a/*/c'],
        ['repos/*', 'repos/*/x'],
        ['repos/**', 'repos'],
      ];
      for (const [outer, inner] of inside) assert.ok(resourceCovers(outer, inner), `${outer} covers ${inner}`);
      for (const [outer, inner] of outside)
        assert.ok(!resourceCovers(outer, inner), `${outer} does not cover ${inner}`);
    });

    it('refuses . and .. segments, too many wildcards or segments', () => {
      assert.match(resourcePatternProblem('repos/../secrets')!, /\.\. segment/);
      for (const p of ['/repos', 'repos/', 'a//b']) assert.match(resourcePatternProblem(p)!, /empty segment/);
      assert.match(resourcePatternProblem('*'.repeat(11))!, /wildcards/);
      assert.match(resourcePatternProblem(Array(40).fill('a').join('/'))!, /segments/);
      assert.equal(resourcePatternProblem('repos/*/issues/**'), null);
    });

    it(
      'a scope without resources covers any resource, a connector without scopes gets one for its caps; a ' +
        'session narrows what its connector allows',
      () => {
        const scopes = normalizeScopes(
          [{ actions: ['crm.*'] }, { actions: ['tickets.create'], resources: ['boards/support/*'] }],
          ['crm.read', 'tickets.create'],
        );
        assert.deepEqual(scopes[0]!.resources, ['**']);
        assert.deepEqual(normalizeScopes(undefined, ['crm.read', 'crm.update']), [
          { actions: ['crm.read', 'crm.update'], resources: ['**'], tokenRefs: [] },
        ]);
        assert.equal(scopesCovering(scopes, 'crm.read', 'anything/at/all').length, 1);
        assert.equal(scopesCovering(scopes, 'tickets.create', 'boards/support/42').length, 1);
        assert.equal(scopesCovering(scopes, 'tickets.create', 'boards/sales/42').length, 0);
        assert.equal(scopesCovering(scopes, 'tickets.update').length, 0);
        const session = { actions: ['tickets.create'], resources: ['boards/support/4*'] };
        assert.deepEqual(
          [
            sessionCovers(session, 'tickets.create', 'boards/support/42'),
            sessionCovers(session, 'tickets.create', 'boards/support/51'),
            sessionCovers(session, 'crm.read'),
          ],
          [true, false, false],
        );
        assert.ok(sessionCovers({ actions: ['crm.read'], resources: null }, 'crm.read', 'x/y'));
      },
    );
  });

  describe('policy table', () => {
    it('matches capabilities part by part, * for a whole part', () => {
      assert.deepEqual(
        [
          capabilityMatches('*.read', 'crm.read'),
          capabilityMatches('crm.*', 'crm.update'),
          capabilityMatches('crm.*', 'crmx.update'),
          capabilityMatches('*.read', 'crm.readAll'),
        ],
        [true, true, false, false],
      );
    });

    it('deny rules come first, an unnamed capability is denied by the default, pay requires a mandate', () => {
      // *.read allows reads, but money is denied first
      assert.deepEqual(decide('bridge', 'payments.read').rule, { id: 'bridge.deny.money', effect: 'deny' });
      assert.deepEqual(decide('bridge', 'sms.send'), {
        allowed: true,
        rule: { id: 'bridge.allow.contact', effect: 'allow' },
        reason: 'contacting people through a provider connector',
        requires: [],
      });
      assert.deepEqual(decide('bridge', 'teleport.now').rule, { id: 'bridge.default', effect: 'deny' });
      assert.deepEqual(
        [decide('pay', 'payments.settle').allowed, decide('pay', 'payments.settle').requires],
        [true, ['mandate']],
      );
      assert.equal(decide('proxy', 'payments.settle').allowed, false);
      assert.equal(decide('bridge', 'crm.delete').rule.id, 'bridge.deny.destructive');
    });

    it('the published map is built from the enforced table', () => {
      const map = policyMap();
      for (const [domain, p] of Object.entries(POLICY)) {
        const published = map.domains[domain]!;
        assert.deepEqual(
          published.rules.map((r) => r.id),
          p.rules.map((r) => r.id),
        );
        assert.deepEqual(
          published.allowedCapabilities,
          p.rules.filter((r) => r.effect === 'allow').flatMap((r) => r.caps),
        );
      }
      assert.deepEqual(map.preflightRules, PREFLIGHT_RULES);
      assert.deepEqual(
        PREFLIGHT_RULES.map((c) => c.check),
        [...PREFLIGHT_CHECKS],
        'one rule per check, in the order they run',
      );
    });

    it('a preflight reports its most severe failure', () => {
      assert.equal(preflightStatus([]), 'ready');
      assert.equal(preflightStatus(['endpoint', 'secret']), 'needsSecret');
      assert.equal(preflightStatus(['secret', 'scope']), 'blocked');
      assert.equal(preflightStatus(['endpoint']), 'unreachable');
    });
  });

  describe('connectors', () => {
    it(
      'names each problem with its field: literal secrets, references out of bounds, scope actions no cap has, ' +
        'a missing credential',
      () => {
        const problems = connectorProblems(
          {
            kind: 'oauth',
            caps: ['crm.read'],
            credential: null,
            scopes: normalizeScopes(
              [
                {
                  actions: ['crm.read', 'tickets.create'],
                  tokenRefs: ['sk_live_' + 'x9Y'.repeat(10), 'env:DATABASE_URL'],
                  resources: ['a/../b'],
                },
              ],
              ['crm.read'],
            ),
          },
          'AWP_SECRET_',
          true,
        );
        assert.deepEqual(
          problems.map((p) => [p.path, p.problem ?? null]),
          [
            ['/credential', null],
            ['/scopes/0/tokenRefs/0', 'literalSecret'],
            ['/scopes/0/tokenRefs/1', 'outsidePrefix'],
            ['/scopes/0/actions/1', null],
            ['/scopes/0/resources/0', null],
          ],
        );
        assert.match(problems[1]!.message, /env:AWP_SECRET_NAME/);
        // A tenant's connector (env not allowed): any env: reference is refused before its name is looked at.
        const tenant = connectorProblems(
          { kind: 'custom', caps: ['crm.read'], credential: { tokenRef: 'env:AWP_SECRET_CRM' }, scopes: [] },
          'AWP_SECRET_',
        );
        assert.deepEqual(
          tenant.map((p) => [p.path, p.problem]),
          [['/credential/tokenRef', 'envNotAllowed']],
        );
        assert.ok(!JSON.stringify(problems).includes('x9Yx9Y'), 'the literal is never repeated');
      },
    );

    it('readiness names what stands in the way; a match is scored with its reasons', () => {
      const c: ConnectorShape = {
        connectorId: 'crm',
        caps: ['crm.read', 'payments.settle'],
        credential: { type: 'bearer', tokenRef: 'env:AWP_SECRET_CRM' },
        scopes: normalizeScopes(
          [{ actions: ['crm.read'], resources: ['contacts/*'] }],
          ['crm.read', 'payments.settle'],
        ),
        status: 'active',
      };
      const unset = (refs: string[]) => refs.map((ref) => ({ ref, variable: ref.slice(4), set: false }));
      const set = (refs: string[]) => refs.map((ref) => ({ ref, variable: ref.slice(4), set: true }));
      assert.deepEqual(readiness(c, unset(['env:AWP_SECRET_CRM'])), {
        preflightReady: false,
        notReady: [{ check: 'secret', message: 'env:AWP_SECRET_CRM is not set on this server' }],
      });
      assert.equal(readiness(c, set(['env:AWP_SECRET_CRM'])).preflightReady, true);
      const full = scoreMatch(c, { capability: 'crm.read', resource: 'contacts/42' }, set)!;
      const outOfScope = scoreMatch(c, { capability: 'crm.read', resource: 'deals/1' }, set)!;
      const missing = scoreMatch(c, { capability: 'crm.read', resource: 'contacts/42' }, unset)!;
      assert.equal(full.score, 1);
      assert.ok(outOfScope.score < full.score && missing.score < full.score);
      assert.deepEqual(
        outOfScope.reasons.filter((r) => !r.met).map((r) => r.criterion),
        ['scope'],
      );
      assert.equal(scoreMatch(c, { capability: 'tickets.create' }, set), null);
      assert.equal(scoreMatch(c, { capability: 'crm.read', tokenRef: 'env:AWP_SECRET_OTHER' }, set), null);
      assert.ok(scoreMatch(c, { capability: 'crm.read', tokenRef: 'env:AWP_SECRET_CRM' }, set));
    });

    it(
      'every ready-made connector is valid for a tenant, allowed by the bridge policy, and names the vault ' +
        'credentials it reads',
      () => {
        for (const t of readyConnectors()) {
          assert.deepEqual(
            connectorProblems(
              { kind: t.kind, caps: t.caps, credential: t.credential, scopes: t.scopes },
              'AWP_SECRET_',
            ),
            [],
            t.templateId,
          );
          for (const cap of t.caps) assert.ok(decide('bridge', cap).allowed, `${t.templateId}: ${cap}`);
          assert.ok(t.requiredEnv.length > 0 && t.requiredEnv.every((r) => r.startsWith('cred:')), t.templateId);
        }
      },
    );

    it('status machines: connectors never end; sessions end revoked or expired', () => {
      assert.deepEqual([CONNECTORS.terminal, SESSIONS.terminal], [[], ['revoked', 'expired']]);
      assert.deepEqual(
        [
          CONNECTORS.canMove('disabled', 'needsAttention'),
          CONNECTORS.canMove('needsAttention', 'active'),
          SESSIONS.canMove('expired', 'revoked'),
        ],
        [false, true, false],
      );
    });
  });
});
