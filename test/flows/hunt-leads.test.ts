import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { submitRun } from '../../jobs/orchestrator/submit.js';
import { createDeps } from '../../shared/deps.js';
import { createLogger } from '../../shared/log.js';
import { startWorkers } from '../../workers/domains.js';
import { harness } from '../support/harness.js';
import { pollUntilRest } from '../support/runs.js';

/** A Nominatim-shaped provider (`/search?format=jsonv2&extratags=1`): plumbers, two with a way to reach them. */
async function nominatim() {
  const place = (id: number, name: string, lat: number, lon: number, extratags: Record<string, string>) => ({
    place_id: 200000 + id,
    licence: 'Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright',
    osm_type: 'node',
    osm_id: id,
    lat: String(lat),
    lon: String(lon),
    category: 'craft',
    type: 'plumber',
    name,
    display_name: `${name}, Mitte, Berlin, Deutschland`,
    extratags,
  });
  const asked: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://fake').searchParams;
    asked.push(q);
    const text = q.get('q') ?? '';
    const body = /alexanderplatz/i.test(text)
      ? [{ ...place(1, 'Alexanderplatz', 52.5219, 13.4132, {}), category: 'place', type: 'square' }]
      : /plumber/i.test(text)
        ? [
            place(11, 'Rohrblitz Sanitär', 52.5231, 13.4101, {
              phone: '+49 30 1234567',
              website: 'https://rohr.example',
            }),
            place(12, 'Kiez Klempner', 52.52, 13.415, { 'contact:email': 'auftrag@klempner.example' }),
            place(13, 'Anonymous Pipes', 52.521, 13.414, {}),
          ]
        : /locksmith/i.test(text)
          ? [place(21, 'Schlüsseldienst Mitte', 52.522, 13.412, { 'contact:phone': '+49 30 7654321' })]
          : [];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    stop: () => (server.closeAllConnections(), new Promise((r) => server.close(r))),
  };
}

/** Issue 34: hunt returns leads (businesses with contact channels) from the places provider, for a proxy mission. */
describe('hunt leads: businesses to contact, handed to a proxy mission', function () {
  this.timeout(60_000);

  it('one reachable business is selected and the proxy mission calls its phone; several are a choice', async () => {
    const fake = await nominatim();
    const deps = createDeps(
      harness.configWith({
        QUEUE_PREFIX: `{awp-leads-${randomBytes(3).toString('hex')}}`,
        MAP_PROVIDER: 'nominatim',
        MAP_PROVIDER_URL: fake.url,
      }),
      createLogger('silent'),
    );
    const workers = startWorkers(deps, ['hunt', 'proxy', 'orchestrator']);
    try {
      const { accountId, token, tokenId } = await harness.account();
      const principal = { accountId, tokenId, scopes: [], plan: 'team', activated: true };
      const one = await submitRun(deps, principal as never, {
        request: 'find a locksmith near Alexanderplatz and call them',
        domainRoute: ['hunt', 'proxy'],
        consentToCall: true,
      });
      const rested = await pollUntilRest(token, one.id);
      const hunt = rested.result.results.hunt;
      assert.deepEqual(
        hunt.leads.map((l: any) => [l.name, l.phone]),
        [['Schlüsseldienst Mitte', '+49 30 7654321']],
      );
      assert.deepEqual([hunt.selected.kind, hunt.selected.phone], ['lead', '+49 30 7654321']);
      assert.equal(hunt.sourceTelemetry.leads.status, 'ok');
      const proxy = rested.result.results.proxy;
      assert.equal(rested.status, 'awaitingProxy');
      assert.deepEqual(
        [proxy.kind, proxy.selectedProvider.name, proxy.voiceCall.phone],
        ['call', 'Schlüsseldienst Mitte', '+49307654321'],
      );
      assert.ok(
        fake.asked.every((q) => q.get('extratags') === '1'),
        'asks for the contact tags',
      );

      const several = await submitRun(deps, principal as never, {
        request: 'find a plumber near Alexanderplatz and contact them',
        domainRoute: ['hunt', 'proxy'],
      });
      const choosing = await pollUntilRest(token, several.id);
      assert.equal(choosing.status, 'NEEDS_INPUT');
      const choices = choosing.result.results.hunt.choices;
      assert.deepEqual(
        choices.map((c: any) => [c.title, c.kind, c.phone, c.email, c.price]),
        [
          ['Kiez Klempner', 'lead', null, 'auftrag@klempner.example', null],
          ['Rohrblitz Sanitär', 'lead', '+49 30 1234567', null, null],
        ],
        'only places with a way to reach them (nearest first); the one without is no lead',
      );
    } finally {
      for (const w of workers) await w.stop();
      await deps.close();
      await fake.stop();
    }
  });
});
