import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { harness } from '../support/harness.js';
import { startExtraApp } from '../support/extra-app.js';
import { iptcSegment, jpeg, png, xmpSegment } from '../support/images.js';
import { ensureChromium } from '../support/chromium.js';
import { startScriptShop } from '../support/discovery-shops.js';
import { PAGES, startShop, type ShopServer } from '../support/shop-pages.js';

const sha256 = (body: string | Buffer) => createHash('sha256').update(body).digest('hex');

/** A phone photo as a camera writes it, then opened and saved in an editor (Software), with a GPS fix. */
const EDITED_PHOTO = jpeg(16, {
  make: 'Apple',
  model: 'iPhone 15 Pro',
  software: 'Adobe Photoshop 25.0 (Windows)',
  dateTimeOriginal: '2024:05:01 10:00:00',
  createDate: '2024:05:01 10:00:00',
  modifyDate: '2024:05:03 18:22:10',
  gps: { lat: 52.5163, lon: -13.3777 },
});
const CAMERA_PHOTO = jpeg(24, {
  make: 'Canon',
  model: 'Canon EOS R6',
  software: 'Firmware Version 1.8.1',
  dateTimeOriginal: '2024:06:10 08:15:00',
  createDate: '2024:06:10 08:15:00',
  modifyDate: '2024:06:10 08:15:00',
});
const XMP_PHOTO = jpeg(8, undefined, [
  xmpSegment('Adobe Photoshop Lightroom Classic 13.2 (Macintosh)', ['derived', 'saved']),
  iptcSegment('Listing photo'),
]);

describe('tools: browserReader', () => {
  let shop: ShopServer;
  let token: string;
  const read = (body: unknown, t: string | null = token, base = harness.url) =>
    harness.call('POST', '/v1/tools/browserReader', { token: t ?? undefined, body }, base);

  before(async () => {
    shop = await startShop();
    ({ token } = await harness.account());
  });
  after(() => shop.stop());

  it('read: title, readable text, links, JSON-LD and the hash of the body as fetched', async () => {
    const res = await read({ url: `${shop.url}/tools/blog-post`, mode: 'read' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.mode, res.body.status, res.body.title], ['read', 200, 'How to choose a drill']);
    assert.match(res.body.contentType, /^text\/html/);
    assert.equal(res.body.contentHash, sha256(PAGES['/tools/blog-post']!.body));
    assert.match(
      res.body.text,
      /^Home Power tools Shipping & returns Contact\nHow to choose a drill\nTorque matters\./,
    );
    assert.ok(
      !res.body.text.includes('dataLayer') && !res.body.text.includes('Internal:'),
      'no scripts, no hidden elements',
    );
    const links = res.body.links.map((l: any) => l.url);
    assert.ok(links.includes(`${shop.url}/tools/drill-pro`), 'relative links made absolute');
    assert.ok(links.includes('https://other.test/review?x=1'), 'fragments dropped');
    assert.ok(!links.some((l: string) => l.startsWith('mailto:')), 'only http(s) links');
    assert.deepEqual(res.body.structuredData, [
      { '@context': 'https://schema.org', '@type': 'BlogPosting', headline: 'How to choose a drill' },
    ]);
    assert.ok(Date.parse(res.body.fetchedAt) > Date.now() - 60_000);
  });

  it('read follows redirects, reports a 404 page as what it is, reads plain text; mode defaults to read', async () => {
    const redirected = await read({ url: `${shop.url}/redirect/drill` });
    assert.equal(redirected.body.finalUrl, `${shop.url}/tools/drill-compact`);
    assert.equal(redirected.body.structuredData[0]['@graph'].length, 4);
    const gone = await read({ url: `${shop.url}/tools/gone` });
    assert.deepEqual([gone.status, gone.body.status, gone.body.title], [200, 404, 'Not found']);
    const text = await read({ url: `${shop.url}/notes.txt` });
    assert.equal(text.body.text, 'Plain notes: drills ship from the Denver warehouse.\n');
  });

  it('render: true reads the DOM its scripts left; robots.txt honoured; 400 if not boolean', async function () {
    this.timeout(60_000);
    if (ensureChromium()) this.skip();
    const spa = await startScriptShop();
    try {
      const plain = await read({ url: `${spa.url}/drill` });
      assert.ok(!plain.body.text.includes('Cordless Drill 12V Compact'), 'not there before the script runs');
      const res = await read({ url: `${spa.url}/drill`, render: true });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.rendered, res.body.status], [true, 200]);
      assert.match(res.body.text, /Cordless Drill 12V Compact/);
      assert.match(res.body.contentHash, /^[0-9a-f]{64}$/);
      assert.ok(!spa.requests.includes('/private/pixel'), 'robots.txt forbids it: the browser never asked');
      assert.equal((await read({ url: `${spa.url}/drill`, render: 'yes' })).status, 400);
    } finally {
      await spa.stop();
    }
  });

  it('prepare returns the plan and fetches nothing', async () => {
    const before = shop.requests.length;
    const res = await read({ url: `${shop.url}/tools/drill-pro`, mode: 'prepare' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.plan.fetched, false);
    assert.equal(res.body.plan.target.host, new URL(shop.url).host);
    assert.equal(res.body.plan.limits.timeoutMs, harness.config.WEB_PAGE_TIMEOUT_MS);
    assert.equal(res.body.plan.privateAddressesAllowed, true);
    assert.equal(shop.requests.length, before);
  });

  it(
    '400 for an unknown mode or a URL that is not http(s), 422 for a private address, an unreachable or ' +
      'oversized page; 401 without a token',
    async () => {
      const mode = await read({ url: `${shop.url}/x`, mode: 'render' });
      assert.equal(mode.status, 400);
      assert.equal(mode.body.details[0].path, '/mode');
      assert.equal((await read({ url: 'file:///etc/passwd' })).body.details[0].path, '/url');
      const unreachable = await read({ url: 'http://127.0.0.1:9/nothing-listens' });
      assert.deepEqual(
        [unreachable.status, unreachable.body.details.field, unreachable.body.details.reason],
        [422, 'url', 'unreachable'],
      );
      const guarded = await startExtraApp({ AWP_ALLOW_PRIVATE_EGRESS: '0', WEB_PAGE_MAX_BYTES: '20000' });
      try {
        for (const url of [`${shop.url}/tools/drill-pro`, 'http://localhost:8080/admin', 'http://[::1]/']) {
          const res = await read({ url }, token, guarded.url);
          assert.deepEqual([res.status, res.body.details.reason], [422, 'refused'], url);
          const plan = await read({ url, mode: 'prepare' }, token, guarded.url);
          assert.equal(plan.status, 422, `prepare refuses ${url} too`);
        }
        const allowed = await startExtraApp({ WEB_PAGE_MAX_BYTES: '20000' });
        try {
          const big = await read({ url: `${shop.url}/big` }, token, allowed.url);
          assert.deepEqual([big.status, big.body.details.reason], [422, 'tooLarge']);
        } finally {
          await allowed.stop();
        }
      } finally {
        await guarded.stop();
      }
      assert.equal((await read({ url: `${shop.url}/tools/drill-pro` }, null)).status, 401);
    },
  );
});

describe('tools: imageReader', () => {
  let shop: ShopServer;
  let token: string;
  const readImages = (attachments: unknown[], t: string | null = token, base = harness.url) =>
    harness.call('POST', '/v1/tools/imageReader', { token: t ?? undefined, body: { attachments } }, base);

  before(async () => {
    shop = await startShop({ extra: { '/img/photo.jpg': { type: 'image/jpeg', body: CAMERA_PHOTO } } });
    ({ token } = await harness.account());
  });
  after(() => shop.stop());

  it(
    'a JPEG with EXIF: camera, editing software, ' +
      'timestamps that disagree and a GPS fix, each with its ' +
      'evidence',
    async () => {
      const res = await readImages([
        { name: 'receipt.jpg', mime: 'image/jpeg', data: EDITED_PHOTO.toString('base64') },
      ]);
      assert.equal(res.status, 200, res.text);
      const [img] = res.body.images;
      assert.deepEqual(
        [img.format, img.width, img.height, img.bytes, img.sha256, img.metadata, img.from],
        ['jpg', 16, 8, EDITED_PHOTO.length, sha256(EDITED_PHOTO), 'present', 'data'],
      );
      assert.deepEqual(
        [img.exif.make, img.exif.model, img.exif.software],
        ['Apple', 'iPhone 15 Pro', 'Adobe Photoshop 25.0 (Windows)'],
      );
      assert.equal(img.exif.dateTimeOriginal, '2024:05:01 10:00:00');
      assert.ok(
        Math.abs(img.exif.gps.latitude - 52.5163) < 1e-4 && Math.abs(img.exif.gps.longitude + 13.3777) < 1e-4,
        JSON.stringify(img.exif.gps),
      );
      const kinds = img.signals.map((s: any) => s.kind).sort();
      assert.deepEqual(kinds, ['editingSoftware', 'gpsFix', 'timestampsDisagree']);
      assert.equal(
        img.signals.find((s: any) => s.kind === 'editingSoftware').evidence,
        'Software: "Adobe Photoshop 25.0 (Windows)"',
      );
      assert.match(
        img.signals.find((s: any) => s.kind === 'timestampsDisagree').evidence,
        /ModifyDate 2024:05:03 18:22:10 is later than DateTimeOriginal 2024:05:01 10:00:00/,
      );
      assert.match(img.signals.find((s: any) => s.kind === 'gpsFix').evidence, /^GPS 52\.5163\d*, -13\.3777/);
    },
  );

  it('a bare PNG reports metadata none and no signals; a bare JPEG is marked as stripped', async () => {
    const bare = png(3, 2);
    const res = await readImages([
      { name: 'screenshot.png', mime: 'image/png', data: bare.toString('base64') },
      { name: 'forwarded.jpg', mime: 'image/jpeg', data: jpeg(8).toString('base64') },
    ]);
    assert.equal(res.status, 200, res.text);
    const [p, j] = res.body.images;
    assert.deepEqual(
      [p.format, p.width, p.height, p.metadata, p.signals, p.exif.gps, p.sha256],
      ['png', 3, 2, 'none', [], null, sha256(bare)],
    );
    assert.equal(j.metadata, 'none');
    assert.deepEqual(
      j.signals.map((s: any) => s.kind),
      ['metadataStripped'],
    );
  });

  it(
    'XMP edit history and an IPTC block are edit ' + 'signals; a declared type the bytes contradict is ' + 'reported',
    async () => {
      const res = await readImages([{ name: 'listing.png', mime: 'image/png', data: XMP_PHOTO.toString('base64url') }]);
      assert.equal(res.status, 200, res.text);
      const [img] = res.body.images;
      assert.deepEqual(
        [img.xmp.creatorTool, img.xmp.historyActions, img.iptc],
        ['Adobe Photoshop Lightroom Classic 13.2 (Macintosh)', 2, true],
      );
      const evidence = img.signals.map((s: any) => `${s.kind}: ${s.evidence}`);
      assert.ok(
        evidence.includes('editingSoftware: XMP CreatorTool: "Adobe Photoshop Lightroom Classic 13.2 (Macintosh)"'),
        evidence.join('\n'),
      );
      assert.ok(evidence.includes('editHistory: XMP history lists 2 step(s): derived, saved'), evidence.join('\n'));
      assert.ok(evidence.some((e: string) => e.startsWith('editHistory: an IPTC block')));
      assert.ok(evidence.includes('formatMismatch: declared image/png, but the bytes are JPG (image/jpeg)'));
    },
  );

  it("reads an image from a URL; a camera's own EXIF gives no edit signal", async () => {
    const res = await readImages([{ name: 'photo.jpg', mime: 'image/jpeg', url: `${shop.url}/img/photo.jpg` }]);
    assert.equal(res.status, 200, res.text);
    const [img] = res.body.images;
    assert.deepEqual(
      [img.from, img.width, img.sha256, img.exif.model, img.signals],
      ['url', 24, sha256(CAMERA_PHOTO), 'Canon EOS R6', []],
    );
  });

  it(
    '400 naming the field: bad base64, not an image, neither or both of data and url, too large; 422 for an ' +
      'unreadable URL; 401',
    async () => {
      const badB64 = await readImages([{ name: 'a.jpg', mime: 'image/jpeg', data: 'not base64!!' }]);
      assert.deepEqual([badB64.status, badB64.body.details[0].path], [400, '/attachments/0/data']);
      const notImage = await readImages([
        { name: 'ok.png', mime: 'image/png', data: png(1, 1).toString('base64') },
        { name: 'a.txt', mime: 'image/png', data: Buffer.from('hello, not an image').toString('base64') },
      ]);
      assert.deepEqual([notImage.status, notImage.body.details[0].path], [400, '/attachments/1/data']);
      assert.equal((await readImages([{ name: 'x', mime: 'image/png' }])).body.details[0].path, '/attachments/0');
      assert.equal(
        (await readImages([{ name: 'x', mime: 'image/png', data: 'AAAA', url: `${shop.url}/img/photo.jpg` }])).status,
        400,
      );
      assert.equal((await readImages([])).status, 400);
      const gone = await readImages([{ name: 'x.jpg', mime: 'image/jpeg', url: `${shop.url}/img/missing.jpg` }]);
      assert.deepEqual([gone.status, gone.body.details.field], [422, 'attachments/0/url']);
      const small = await startExtraApp({ IMAGE_MAX_BYTES: '1024' });
      try {
        const big = await readImages(
          [
            {
              name: 'big.png',
              mime: 'image/png',
              data: Buffer.concat([png(1, 1), Buffer.alloc(2000)]).toString('base64'),
            },
          ],
          token,
          small.url,
        );
        assert.deepEqual([big.status, big.body.details[0].keyword], [400, 'maxBytes']);
      } finally {
        await small.stop();
      }
      assert.equal(
        (await readImages([{ name: 'a.png', mime: 'image/png', data: png(1, 1).toString('base64') }], null)).status,
        401,
      );
    },
  );
});
