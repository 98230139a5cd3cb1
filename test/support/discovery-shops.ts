import { startShop, type ShopServer } from './shop-pages.js';

/**
 * Shops hunt discovers through a search source (issue 34): one priced in EUR, one in GBP, one whose offer only
 * exists after its script runs (the page ships an empty app root; the script fetches the product and renders it
 * with microdata), each with a robots.txt that forbids `/private/` to awp-hunt. The script-rendered shop's script
 * also asks for `/private/pixel`, which the browser must not request either.
 */

const ld = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;
const page = (title: string, head: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head>` +
  `<body><header><nav><a href="/">Home</a> <a href="/tools">Tools</a></nav></header><main>${body}</main>` +
  `<footer>Prices include VAT.</footer></body></html>`;
const ROBOTS = { type: 'text/plain', body: 'User-agent: awp-hunt\nDisallow: /private/\n\nUser-agent: *\nDisallow:\n' };

const product = (name: string, price: string, currency: string, shipping: string | null, seller: string) =>
  ld({
    '@context': 'https://schema.org',
    '@type': 'Product',
    name,
    offers: {
      '@type': 'Offer',
      price,
      priceCurrency: currency,
      availability: 'https://schema.org/InStock',
      seller: { '@type': 'Organization', name: seller },
      ...(shipping !== null
        ? { shippingDetails: { shippingRate: { '@type': 'MonetaryAmount', value: shipping, currency } } }
        : {}),
    },
  });

export function startEuroShop(): Promise<ShopServer> {
  return startShop({
    extra: {
      '/robots.txt': ROBOTS,
      '/p/cordless-drill-18v': {
        body: page(
          'Werkzeughaus — Cordless Drill Driver 18V',
          product('Cordless Drill Driver 18V', '329.00', 'EUR', '9.90', 'Werkzeughaus'),
          '<h1>Cordless Drill Driver 18V</h1><p>€329.00, shipping €9.90</p>',
        ),
      },
      '/p/cordless-hammer-drill-36v': {
        body: page(
          'Werkzeughaus — Cordless Hammer Drill 36V',
          product('Cordless Hammer Drill 36V', '489.00', 'EUR', '0', 'Werkzeughaus'),
          '<h1>Cordless Hammer Drill 36V</h1><p>€489.00</p>',
        ),
      },
    },
  });
}

export function startPoundShop(): Promise<ShopServer> {
  return startShop({
    extra: {
      '/robots.txt': ROBOTS,
      '/products/cordless-combi-drill': {
        body: page(
          'Tooling UK | Cordless Combi Drill 18V',
          product('Cordless Combi Drill 18V', '279.00', 'GBP', '0', 'Tooling UK'),
          '<h1>Cordless Combi Drill 18V</h1><p>£279.00, free delivery</p>',
        ),
      },
      // Trade prices: robots.txt forbids /private/ to awp-hunt; hunt must never ask for it.
      '/private/cordless-drill-trade': {
        body: page('Trade', product('Cordless Drill Trade Price', '99.00', 'GBP', '0', 'Tooling UK'), '<h1>Trade</h1>'),
      },
    },
  });
}

const APP = `
fetch('/private/pixel').catch(function () {});
fetch('/api/drill.json').then(function (r) { return r.json(); }).then(function (p) {
  document.getElementById('app').innerHTML =
    '<div itemscope itemtype="https://schema.org/Product">' +
    '<h1 itemprop="name">' + p.name + '</h1>' +
    '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer">' +
    '<span itemprop="price" content="' + p.price + '">€' + p.price + '</span>' +
    '<meta itemprop="priceCurrency" content="EUR">' +
    '<link itemprop="availability" href="https://schema.org/InStock">' +
    '<meta itemprop="seller" content="Bricomarkt">' +
    '</div></div>';
});`;

export function startScriptShop(): Promise<ShopServer> {
  return startShop({
    extra: {
      '/robots.txt': ROBOTS,
      '/drill': {
        body:
          '<!doctype html><html><head><meta charset="utf-8"><title>Bricomarkt</title></head><body>' +
          '<noscript>You need to enable JavaScript to run this app.</noscript><div id="app"></div>' +
          '<script src="/app.js"></script></body></html>',
      },
      '/app.js': { type: 'application/javascript', body: APP },
      '/api/drill.json': {
        type: 'application/json',
        body: JSON.stringify({ name: 'Cordless Drill 12V Compact', price: '189.00' }),
      },
      '/private/pixel': { type: 'image/gif', body: 'GIF89a' },
    },
  });
}
