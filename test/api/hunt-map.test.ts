import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { harness } from '../support/harness.js';
import { startExtraApp } from '../support/extra-app.js';

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/**
 * A fake places provider on loopback that answers in the provider's own response format, and records what it was asked.
 */
async function fakeProvider(answer: (req: Seen) => { status?: number; body: unknown }) {
  const seen: Seen[] = [];
  // An answer given once, before the normal ones (a 429 with its Retry-After).
  const fake = { failNext: null as { status: number; headers: Record<string, string> } | null };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const r: Seen = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: raw ? JSON.parse(raw) : null,
      };
      seen.push(r);
      const once = fake.failNext;
      fake.failNext = null;
      if (once) return void res.writeHead(once.status, once.headers).end('{"error":"Too Many Requests"}');
      const a = answer(r);
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(fake, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}

/** Nominatim /search?format=jsonv2 rows, as the public instance returns them. */
const osm = (id: number, name: string, lat: number, lon: number, display: string, type = 'pharmacy') => ({
  place_id: 100000 + id,
  licence: 'Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright',
  osm_type: 'node',
  osm_id: id,
  lat: lat.toFixed(7),
  lon: lon.toFixed(7),
  category: 'amenity',
  type,
  place_rank: 30,
  importance: 0.00008,
  addresstype: 'amenity',
  name,
  display_name: display,
  boundingbox: [String(lat - 0.0001), String(lat + 0.0001), String(lon - 0.0001), String(lon + 0.0001)],
});
const ALEX = {
  ...osm(
    3908141014,
    'Alexanderplatz',
    52.5219184,
    13.4132147,
    'Alexanderplatz, Mitte, Berlin, 10178, Deutschland',
    'square',
  ),
  osm_type: 'way',
  category: 'place',
};

describe('tools: map', () => {
  let token: string;
  const map = (base: string, body: unknown, t: string | null = token) =>
    harness.call('POST', '/v1/tools/map', { token: t ?? undefined, body }, base);
  before(async () => ({ token } = await harness.account()));

  it('with no provider configured: 422 saying so, never invented places; 400 and 401 as usual', async () => {
    const res = await map(harness.url, { query: 'pharmacy near Alexanderplatz, Berlin' });
    assert.equal(res.status, 422, res.text);
    assert.match(res.body.message, /no places provider is configured.*MAP_PROVIDER/);
    assert.equal((await map(harness.url, { radiusKm: 5 })).status, 400);
    assert.equal((await map(harness.url, { query: 'x', radiusKm: 0 })).body.details[0].path, '/radiusKm');
    assert.equal((await map(harness.url, { query: 'pharmacy' }, null)).status, 401);
  });

  it(
    'nominatim: geocodes "near …", searches inside the ' +
      "radius, measures distances, keeps each place's OSM " +
      'page',
    async () => {
      const fake = await fakeProvider((r) => {
        if (r.query.get('q') === 'Alexanderplatz, Berlin') return { body: [ALEX] };
        return {
          body: [
            osm(
              1,
              'Apotheke am Alexanderplatz',
              52.5215,
              13.4115,
              'Apotheke am Alexanderplatz, 1, Alexanderplatz, Mitte, Berlin, 10178, Deutschland',
            ),
            osm(
              2,
              'Spandau Apotheke',
              52.5363,
              13.2006,
              'Spandau Apotheke, Carl-Schurz-Straße, Spandau, Berlin, 13597, Deutschland',
            ),
            osm(
              3,
              'Rosenthaler Apotheke',
              52.5297,
              13.4016,
              'Rosenthaler Apotheke, Rosenthaler Straße, Mitte, Berlin, 10119, Deutschland',
            ),
          ],
        };
      });
      const app = await startExtraApp({ MAP_PROVIDER: 'nominatim', MAP_PROVIDER_URL: fake.url });
      try {
        const res = await map(app.url, { query: 'pharmacy near Alexanderplatz, Berlin', radiusKm: 5 });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(
          [res.body.provider, res.body.query, res.body.center.from, res.body.center.lat],
          ['nominatim', 'pharmacy', 'near', 52.5219184],
        );
        assert.deepEqual(
          res.body.places.map((p: any) => p.name),
          ['Apotheke am Alexanderplatz', 'Rosenthaler Apotheke'],
          'nearest first; Spandau (14 km) is beyond 5 km',
        );
        const first = res.body.places[0];
        assert.deepEqual(
          [first.rating, first.source, first.address],
          [
            null,
            'https://www.openstreetmap.org/node/1',
            'Apotheke am Alexanderplatz, 1, Alexanderplatz, Mitte, Berlin, 10178, Deutschland',
          ],
        );
        assert.ok(first.distanceKm > 0.05 && first.distanceKm < 0.2, String(first.distanceKm));
        assert.match(res.body.notes.join(), /1 place\(s\).*beyond 5 km/);
        const search = fake.seen[1]!;
        assert.deepEqual(
          [search.path, search.query.get('q'), search.query.get('format'), search.query.get('bounded')],
          ['/search', 'pharmacy', 'jsonv2', '1'],
        );
        const [left, top, right, bottom] = search.query.get('viewbox')!.split(',').map(Number);
        assert.ok(
          left! < 13.4132 && right! > 13.4132 && top! > 52.5219 && bottom! < 52.5219,
          'the viewbox holds the center',
        );
        assert.equal(search.query.get('key'), null, 'no key configured, none sent');
        assert.match(String(search.headers['user-agent']), /awp/);
        const keyed = await map(app.url, {
          query: 'pharmacy',
          center: { lat: 52.52, lon: 13.41 },
          placesProviderApiKey: 'pk.locationiq-style-key-123',
        });
        assert.equal(
          fake.seen.at(-1)!.query.get('key'),
          'pk.locationiq-style-key-123',
          'a hosted Nominatim gets the key as a query parameter',
        );
        assert.ok(!keyed.text.includes('locationiq-style-key'));
      } finally {
        await app.stop();
        await fake.stop();
      }
    },
  );

  it(
    "google: Places Text Search with a location bias, ratings kept; the caller's key overrides the server's " +
      'and is never echoed',
    async () => {
      const callerKey = 'caller-places-key-7f3a9c';
      const fake = await fakeProvider((r) => {
        if (r.headers['x-goog-api-key'] === 'revoked-key-0000')
          return {
            status: 403,
            body: {
              error: {
                code: 403,
                message: 'Requests from this API key are blocked (key revoked-key-0000).',
                status: 'PERMISSION_DENIED',
              },
            },
          };
        return {
          body: {
            places: [
              {
                id: 'ChIJcoffee1',
                formattedAddress: 'Karl-Liebknecht-Str. 13, 10178 Berlin, Germany',
                location: { latitude: 52.5223, longitude: 13.4101 },
                rating: 4.6,
                userRatingCount: 812,
                googleMapsUri: 'https://maps.google.com/?cid=111',
                displayName: { text: 'Coffee Circle', languageCode: 'en' },
              },
              {
                id: 'ChIJcoffee2',
                formattedAddress: 'Rosa-Luxemburg-Str. 2, 10178 Berlin, Germany',
                location: { latitude: 52.525, longitude: 13.409 },
                displayName: { text: 'Kaffee Mitte', languageCode: 'de' },
              },
            ],
          },
        };
      });
      const app = await startExtraApp({
        MAP_PROVIDER: 'google',
        MAP_PROVIDER_URL: fake.url,
        MAP_PROVIDER_KEY: 'server-places-key-1b2c',
      });
      try {
        const res = await map(app.url, {
          query: 'specialty coffee',
          center: { lat: 52.5219, lon: 13.4132 },
          radiusKm: 2,
          placesProviderApiKey: callerKey,
        });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(
          res.body.places.map((p: any) => [p.name, p.rating, p.ratingCount, p.source]),
          [
            ['Coffee Circle', 4.6, 812, 'https://maps.google.com/?cid=111'],
            ['Kaffee Mitte', null, null, 'https://www.google.com/maps/place/?q=place_id:ChIJcoffee2'],
          ],
        );
        assert.ok(!res.text.includes(callerKey) && !res.text.includes('server-places-key'), 'no key in the answer');
        const call = fake.seen[0]!;
        assert.deepEqual(
          [call.method, call.path, call.headers['x-goog-api-key']],
          ['POST', '/v1/places:searchText', callerKey],
        );
        assert.match(String(call.headers['x-goog-fieldmask']), /places\.displayName.*places\.rating/);
        assert.deepEqual(call.body.locationBias, {
          circle: { center: { latitude: 52.5219, longitude: 13.4132 }, radius: 2000 },
        });

        const stored = await harness.call('POST', '/v1/bridge/credentials', {
          token,
          body: { name: 'places', kind: 'apiKey', value: 'vault-places-key-9d8e' },
        });
        assert.equal(stored.status, 201, stored.text);
        await map(app.url, { query: 'coffee', placesProviderApiKey: 'cred:places' });
        assert.equal(
          fake.seen.at(-1)!.headers['x-goog-api-key'],
          'vault-places-key-9d8e',
          "a cred: reference is resolved in the caller's vault",
        );
        await map(app.url, { query: 'coffee' });
        assert.equal(
          fake.seen.at(-1)!.headers['x-goog-api-key'],
          'server-places-key-1b2c',
          'without one, the server key',
        );

        const refused = await map(app.url, { query: 'coffee', placesProviderApiKey: 'revoked-key-0000' });
        assert.equal(refused.status, 422, refused.text);
        assert.match(refused.body.message, /refused the API key \(HTTP 403\)/);
        assert.ok(!refused.text.includes('revoked-key-0000'), 'the provider echoed the key; the answer does not');
        process.env.AWP_SECRET_PLACES_TEST = 'env-places-key-9d8e';
        const env = await map(app.url, { query: 'coffee', placesProviderApiKey: 'env:AWP_SECRET_PLACES_TEST' });
        assert.equal(env.status, 422, "a tool call may not read the server's environment");
        assert.equal(env.body.details.problem, 'envNotAllowed');
        assert.equal(
          (await map(app.url, { query: 'coffee', placesProviderApiKey: 'cred:nope' })).status,
          422,
          'a credential the account lacks',
        );
      } finally {
        delete process.env.AWP_SECRET_PLACES_TEST;
        await app.stop();
        await fake.stop();
      }
    },
  );

  it("caches answers, keeps to the provider's one request a second, waits out a short 429", async () => {
    // Nominatim's public instance allows one request a second: this fake answers 429 to a faster client.
    const statuses: number[] = [];
    let last = 0;
    const fake = await fakeProvider((r) => {
      const now = Date.now();
      const tooSoon = now - last < 1000;
      last = now;
      const answer = tooSoon
        ? { status: 429, body: { error: 'Too Many Requests' } }
        : r.query.get('q') === 'Alexanderplatz'
          ? { body: [ALEX] }
          : { body: [osm(7, 'Apotheke am Alex', 52.5215, 13.4115, 'Apotheke am Alex, Berlin')] };
      statuses.push(answer.status ?? 200);
      return answer;
    });
    const app = await startExtraApp({
      MAP_PROVIDER: 'nominatim',
      MAP_PROVIDER_URL: fake.url,
      MAP_CACHE_SECONDS: '3600',
      MAP_PROVIDER_INTERVAL_MS: '1100',
    });
    try {
      const first = await map(app.url, { query: 'pharmacy near Alexanderplatz' });
      assert.equal(first.status, 200, first.text);
      const bakery = await map(app.url, { query: 'bakery' });
      assert.equal(bakery.status, 200, bakery.text);
      assert.deepEqual(statuses, [200, 200, 200], 'three requests, none too soon');
      const again = await map(app.url, { query: 'pharmacy near Alexanderplatz' });
      assert.deepEqual(again.body.places, first.body.places);
      assert.equal(fake.seen.length, 3, 'answered from the cache: the provider was not asked again');
      assert.ok(again.body.notes.some((n: string) => /"pharmacy" was answered from the cache/.test(n)));
      assert.match(String(fake.seen[0]!.headers['user-agent']), /^awp-hunt\/1\.0 \(\+http/);
    } finally {
      await app.stop();
    }
    // A server that does not space its requests gets a 429 with Retry-After: waited out once, then answered.
    const hasty = await startExtraApp({ MAP_PROVIDER: 'nominatim', MAP_PROVIDER_URL: fake.url });
    try {
      statuses.length = 0;
      fake.failNext = { status: 429, headers: { 'retry-after': '1' } };
      const res = await map(hasty.url, { query: 'florist' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(statuses.slice(-1), [200]);
      assert.equal(fake.seen.at(-2)!.query.get('q'), 'florist', 'asked twice: the 429, then the answer');
    } finally {
      await hasty.stop();
      await fake.stop();
    }
  });

  it(
    'a provider that is down answers 503; one that ' +
      'answers garbage too; no center means no distances, ' +
      'said so',
    async () => {
      const fake = await fakeProvider((r) =>
        r.query.get('q') === 'broken'
          ? { body: { unexpected: true } }
          : {
              body: [
                osm(9, 'Late Night Pharmacy', 40.7128, -74.006, 'Late Night Pharmacy, Broadway, New York, NY, USA'),
              ],
            },
      );
      const app = await startExtraApp({ MAP_PROVIDER: 'nominatim', MAP_PROVIDER_URL: fake.url });
      const down = await startExtraApp({ MAP_PROVIDER: 'nominatim', MAP_PROVIDER_URL: 'http://127.0.0.1:9' });
      try {
        const res = await map(app.url, { query: '24h pharmacy' });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(
          [res.body.center, res.body.places[0].distanceKm, res.body.places[0].name],
          [null, null, 'Late Night Pharmacy'],
        );
        assert.match(res.body.notes.join(), /no center/);
        assert.equal((await map(app.url, { query: 'broken' })).status, 503);
        assert.equal((await map(down.url, { query: 'pharmacy' })).status, 503);
      } finally {
        await app.stop();
        await down.stop();
        await fake.stop();
      }
    },
  );
});
