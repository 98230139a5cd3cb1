import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small web of shop pages for hunt's web source and the browserReader,
 * served over real HTTP on loopback. Each page is written the way real shops
 * write them (themes, nav, footers, scripts), and each describes its product
 * another way: JSON-LD Product + Offer with shippingDetails, an @graph with
 * @id references, a JSON-LD array, an AggregateOffer, microdata only, Open
 * Graph only, a fee in words without a price, another currency, another
 * charset. Plus pages that fail: 404, 500, no product data, a slow page.
 */

const layout = (
  title: string,
  head: string,
  main: string,
  footer = 'Free returns within 30 days. Prices in US dollars.',
) =>
  `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${title}</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/assets/theme.css">
  <script>window.dataLayer = window.dataLayer || []; ` +
  `dataLayer.push({ event: 'view_item', price: '0.00 plus handling fee' });</script>
  ${head}
</head>
<body>
  <header class="site-header"><nav><a href="/">Home</a> <a href="/power-tools">Power tools</a> ` +
  `<a href="/help/shipping">Shipping &amp; returns</a> <a href="mailto:help@shop.test">Contact</a></nav></header>
  <main id="content">${main}</main>
  <footer><p>${footer}</p><p hidden>Internal: plus handling fee test banner</p><p>&copy; 2026 Shop</p></footer>
  <script src="/assets/app.js" defer></script>
</body>
</html>`;

const ld = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data, null, 2)}</script>`;

export const PAGES: Record<string, { type?: string; status?: number; body: string | Buffer }> = {
  // JSON-LD Product with an Offer and a flat shipping rate: net = 149.00 + 9.99.
  '/tools/drill-pro': {
    body: layout(
      'ToolBarn — ProDrive 20V Cordless Drill',
      ld({
        '@context': 'https://schema.org',
        '@type': 'Product',
        name: 'ProDrive 20V Cordless Drill',
        sku: 'PD-20V',
        brand: { '@type': 'Brand', name: 'ProDrive' },
        offers: {
          '@type': 'Offer',
          price: '149.00',
          priceCurrency: 'USD',
          availability: 'https://schema.org/InStock',
          seller: { '@type': 'Organization', name: 'ToolBarn' },
          shippingDetails: {
            '@type': 'OfferShippingDetails',
            shippingRate: { '@type': 'MonetaryAmount', value: 9.99, currency: 'USD' },
            shippingDestination: { '@type': 'DefinedRegion', addressCountry: 'US' },
          },
        },
      }),
      '<h1>ProDrive 20V Cordless Drill</h1><p class="price">$149.00</p><p>Ships in 1–2 business days. ' +
        'Shipping: $9.99 flat.</p><button>Add to cart</button>',
    ),
  },
  // An @graph whose Product names its offer and seller by @id; free shipping.
  '/tools/drill-compact': {
    body: layout(
      'Compact 12V Drill | Hammer & Co',
      ld({
        '@context': 'https://schema.org',
        '@graph': [
          {
            '@type': 'WebPage',
            '@id': 'https://hammer.test/drill#webpage',
            name: 'Compact 12V Drill',
            mainEntity: { '@id': '#product' },
          },
          { '@type': 'Organization', '@id': '#org', name: 'Hammer & Co' },
          { '@type': 'Product', '@id': '#product', name: 'Compact 12V Drill Driver', offers: { '@id': '#offer' } },
          {
            '@type': 'Offer',
            '@id': '#offer',
            price: 129.5,
            priceCurrency: 'USD',
            availability: 'http://schema.org/InStock',
            seller: { '@id': '#org' },
            shippingDetails: [
              {
                '@type': 'OfferShippingDetails',
                shippingRate: { '@type': 'MonetaryAmount', value: '0', currency: 'USD' },
              },
            ],
          },
        ],
      }),
      '<div class="product"><h1>Compact 12V Drill Driver</h1><span class="price">$129.50</span><p>Free ' +
        'shipping on this item.</p></div>',
    ),
  },
  // A JSON-LD array (breadcrumbs, then the product): out of stock.
  '/tools/drill-budget': {
    body: layout(
      'Budget Drill — out of stock',
      ld([
        {
          '@context': 'https://schema.org',
          '@type': 'BreadcrumbList',
          itemListElement: [{ '@type': 'ListItem', position: 1, name: 'Tools', item: 'https://shop.test/tools' }],
        },
        {
          '@context': 'https://schema.org',
          '@type': 'Product',
          name: 'Budget Corded Drill',
          offers: {
            '@type': 'Offer',
            price: '59.00',
            priceCurrency: 'USD',
            availability: 'https://schema.org/OutOfStock',
          },
        },
      ]),
      '<h1>Budget Corded Drill</h1><p><strong>Sold out.</strong> Notify me when available.</p>',
    ),
  },
  // In stock and priced clearly, but over a $200 budget.
  '/tools/drill-hammer': {
    body: layout(
      'SDS Hammer Drill',
      ld({
        '@context': 'https://schema.org',
        '@type': 'Product',
        name: 'SDS Rotary Hammer Drill',
        offers: { '@type': 'Offer', price: 289, priceCurrency: 'USD', availability: 'InStock' },
      }),
      '<h1>SDS Rotary Hammer Drill</h1><p>$289</p>',
    ),
  },
  // Priced in the data, but the text adds a handling fee it never prices.
  '/tools/drill-clearance': {
    body: layout(
      'Clearance Drill',
      ld({
        '@context': 'https://schema.org/',
        '@type': 'Product',
        name: 'Clearance 18V Drill',
        offers: { '@type': 'Offer', price: '119.00', priceCurrency: 'USD', availability: 'https://schema.org/InStock' },
      }),
      '<h1>Clearance 18V Drill</h1><div class="price-box"><span>$119.00</span> <small>plus handling ' +
        'fee</small></div><p>Free shipping. A handling fee applies to every clearance order and is shown at ' +
        'checkout.</p>',
    ),
  },
  // Microdata only: the price sits in a content attribute, availability in a link.
  '/tools/drill-micro': {
    body: layout(
      'Bench Drill (microdata)',
      '',
      `
      <div itemscope itemtype="https://schema.org/Product">
        <h1 itemprop="name">Right-Angle Drill 18V</h1>
        <img itemprop="image" src="/img/right-angle.jpg" alt="">
        <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
          <span itemprop="priceCurrency" content="USD">$</span><span itemprop="price" content="139.99">139.99</span>
          <link itemprop="availability" href="https://schema.org/InStock">In stock
          <div itemprop="seller" itemscope itemtype="https://schema.org/Organization">` +
        `<span itemprop="name">Angle Tools Inc.</span></div>
        </div>
        <div itemprop="review" itemscope itemtype="https://schema.org/Review">` +
        `<span itemprop="name">Great drill</span></div>
      </div>`,
    ),
  },
  // Open Graph product tags only, with a shipping cost.
  '/tools/drill-og': {
    body: layout(
      'Impact Drill',
      `
      <meta property="og:type" content="product">
      <meta property="og:title" content="Brushless Impact Drill 20V">
      <meta property="og:site_name" content="Impact Outlet">
      <meta property="og:url" content="https://impact.test/drill">
      <meta property="product:price:amount" content="134.00">
      <meta property="product:price:currency" content="USD">
      <meta property="product:availability" content="in stock">
      <meta property="product:shipping_cost:amount" content="5.00">
      <meta property="product:shipping_cost:currency" content="USD">`,
      '<h1>Brushless Impact Drill 20V</h1><p>$134.00 + $5.00 shipping</p>',
    ),
  },
  // Priced in euros, in ISO-8859-1.
  '/tools/bohrmaschine': {
    type: 'text/html; charset=ISO-8859-1',
    body: Buffer.from(
      layout(
        'Akku-Bohrschrauber für Holz',
        ld({
          '@context': 'https://schema.org',
          '@type': 'Product',
          name: 'Akku-Bohrschrauber für Holz',
          offers: {
            '@type': 'Offer',
            price: '99,90',
            priceCurrency: 'EUR',
            availability: 'https://schema.org/InStock',
          },
        }),
        '<h1>Akku-Bohrschrauber für Holz</h1>',
      ).replace('charset="utf-8"', 'charset="iso-8859-1"'),
      'latin1',
    ),
  },
  // An AggregateOffer with its sellers' offers nested.
  '/tools/drill-marketplace': {
    body: layout(
      'Drill marketplace',
      ld({
        '@context': 'https://schema.org',
        '@type': 'Product',
        name: 'Marketplace Drill Kit',
        offers: {
          '@type': 'AggregateOffer',
          lowPrice: 95,
          highPrice: 120,
          offerCount: 2,
          priceCurrency: 'USD',
          offers: [
            {
              '@type': 'Offer',
              price: 95,
              priceCurrency: 'USD',
              availability: 'https://schema.org/InStock',
              seller: { '@type': 'Organization', name: 'Seller One' },
            },
            {
              '@type': 'Offer',
              price: 120,
              priceCurrency: 'USD',
              availability: 'https://schema.org/InStock',
              seller: { '@type': 'Organization', name: 'Seller Two' },
            },
          ],
        },
      }),
      '<h1>Marketplace Drill Kit</h1><p>2 offers from $95. Shipping calculated at checkout.</p>',
    ),
  },
  '/redirect/drill': { status: 301, body: '' },
  '/tools/blog-post': {
    body: layout(
      'How to choose a drill',
      ld({ '@context': 'https://schema.org', '@type': 'BlogPosting', headline: 'How to choose a drill' }),
      '<article><h1>How to choose a drill</h1><p>Torque matters.</p><a href="/tools/drill-pro">Our pick</a> ' +
        '<a href="https://other.test/review?x=1#top">A review</a></article>',
    ),
  },
  '/tools/bad-json-ld': {
    body: layout(
      'Broken data',
      '<script type="application/ld+json">{ "@type": "Product", "name": "Half written", </script>',
      '<h1>Oops</h1>',
    ),
  },
  '/tools/gone': { status: 404, body: layout('Not found', '', '<h1>Page not found</h1>') },
  '/tools/error': { status: 500, body: 'Internal Server Error' },
  '/tools/brochure.pdf': {
    type: 'application/pdf',
    body: Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n', 'latin1'),
  },
  '/notes.txt': { type: 'text/plain; charset=utf-8', body: 'Plain notes: drills ship from the Denver warehouse.\n' },
};

export interface ShopServer {
  url: string;
  /** Paths asked for, in order. */
  requests: string[];
  /** Requests to a slow page whose connection closed before the page was sent (the reader gave up or was canceled). */
  abandoned: string[];
  stop(): Promise<void>;
}

/**
 * Serves PAGES, `/slow/*` (headers at once, the body only after `slowMs`),
 * `/big` (a page over any small limit), and whatever `extra` adds.
 */
export async function startShop(
  opts: { slowMs?: number; extra?: Record<string, { type?: string; status?: number; body: string | Buffer }> } = {},
): Promise<ShopServer> {
  const requests: string[] = [];
  const abandoned: string[] = [];
  const pages = { ...PAGES, ...opts.extra };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push(path);
    if (path === '/redirect/drill') return void res.writeHead(301, { location: '/tools/drill-compact' }).end();
    if (path.startsWith('/slow/')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write('<!doctype html><html><head><title>Loading…</title>');
      const slowDrill = ld({
        '@context': 'https://schema.org',
        '@type': 'Product',
        name: 'Slow Shop Drill',
        offers: { '@type': 'Offer', price: 99, priceCurrency: 'USD', availability: 'InStock' },
      });
      const timer = setTimeout(() => res.end(`${slowDrill}</head><body>slow</body></html>`), opts.slowMs ?? 60_000);
      res.on('close', () => {
        clearTimeout(timer);
        if (!res.writableFinished) abandoned.push(path);
      });
      return;
    }
    if (path === '/big')
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<html><body>${'<p>filler</p>'.repeat(20_000)}</body></html>`);
    const page = pages[path];
    if (!page) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>No such page</h1>');
    res.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html; charset=utf-8' });
    res.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    abandoned,
    stop: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
