import type { Cheerio, CheerioAPI } from 'cheerio';

/**
 * The three ways a shop page describes what it sells, read into one shape:
 * JSON-LD objects, microdata items turned into JSON-LD-like objects (`@type`
 * from `itemtype`, a key per `itemprop`), and Open Graph product tags turned
 * into one Product. offers.ts reads products out of that shape, whichever
 * markup it came from. Pure: the page is already parsed (cheerio).
 */

export type LdNode = Record<string, unknown>;

const isNode = (v: unknown): v is LdNode => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON-LD blocks of a page, parsed; a block that is not JSON is counted, never guessed at. */
export function jsonLdBlocks($: CheerioAPI): { roots: unknown[]; invalid: number } {
  const roots: unknown[] = [];
  let invalid = 0;
  $('script').each((_, el) => {
    const type = ($(el).attr('type') ?? '').trim().toLowerCase();
    if (!type.startsWith('application/ld+json')) return;
    // Some CMSs wrap the JSON in an HTML comment or CDATA section; the JSON inside is still the page's own.
    const text = $(el)
      .text()
      .trim()
      .replace(/^(<!--|<!\[CDATA\[)/, '')
      .replace(/(-->|\]\]>)$/, '')
      .trim();
    if (!text) return;
    try {
      roots.push(JSON.parse(text));
    } catch {
      invalid += 1;
    }
  });
  return { roots, invalid };
}

/**
 * `@type` as a list of bare names: `"Product"`, `["Product","Car"]`, `"http://schema.org/Offer"`, `"schema:Offer"` →
 * names.
 */
export function typesOf(node: LdNode): string[] {
  const raw = node['@type'];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.filter((t): t is string => typeof t === 'string').map((t) => t.replace(/^.*[/#:]/, ''));
}

/**
 * Every object in a JSON-LD tree (top-level arrays, `@graph`, and values
 * nested at any depth, such as WebPage.mainEntity or ItemList elements),
 * with an index of the ones that carry an `@id`, so `{ "@id": "#offer" }`
 * references inside a graph can be followed.
 */
export function flattenNodes(roots: unknown[]): { nodes: LdNode[]; byId: Map<string, LdNode> } {
  const nodes: LdNode[] = [];
  const byId = new Map<string, LdNode>();
  const seen = new Set<unknown>();
  const walk = (value: unknown, depth: number): void => {
    if (depth > 16 || seen.has(value)) return;
    if (Array.isArray(value)) return value.forEach((v) => walk(v, depth + 1));
    if (!isNode(value)) return;
    seen.add(value);
    nodes.push(value);
    const id = value['@id'];
    // A bare reference ({ "@id" } alone) does not replace the full object it points to.
    if (typeof id === 'string' && (Object.keys(value).length > 1 || !byId.has(id))) byId.set(id, value);
    for (const v of Object.values(value)) walk(v, depth + 1);
  };
  walk(roots, 0);
  return { nodes, byId };
}

/** A node that is only a reference (`{ "@id": … }`) replaced by the object it names, when the graph has it. */
export function deref(value: unknown, byId: Map<string, LdNode>): unknown {
  if (isNode(value) && typeof value['@id'] === 'string' && Object.keys(value).length === 1)
    return byId.get(value['@id']) ?? value;
  return value;
}

const URL_VALUED = new Set(['a', 'area', 'link']);
const SRC_VALUED = new Set(['img', 'audio', 'video', 'source', 'iframe', 'embed', 'track']);

/**
 * The value of an itemprop element, as the microdata spec reads it (content, href, src, datetime, value, else text).
 */
function propValue($: CheerioAPI, el: Cheerio<any>): string {
  const tag = (el.prop('tagName') ?? '').toLowerCase();
  const attr = (name: string) => el.attr(name);
  if (tag === 'meta') return attr('content') ?? '';
  if (URL_VALUED.has(tag)) return attr('href') ?? '';
  if (SRC_VALUED.has(tag)) return attr('src') ?? '';
  if (tag === 'object') return attr('data') ?? '';
  if (tag === 'time') return attr('datetime') ?? el.text().trim();
  if (tag === 'data' || tag === 'meter') return attr('value') ?? '';
  // Not in the spec, but common (`<span itemprop="price" content="19.99">$19.99</span>`) and what search engines read.
  const content = attr('content');
  if (content !== undefined) return content;
  return el.text().replace(/\s+/g, ' ').trim();
}

function addProp(item: LdNode, name: string, value: unknown): void {
  const prev = item[name];
  item[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
}

/** One microdata item: its properties are the itemprop elements below it that no nested itemscope claims. */
function microdataItem($: CheerioAPI, scope: Cheerio<any>, depth: number): LdNode {
  const item: LdNode = {};
  const types = (scope.attr('itemtype') ?? '').split(/\s+/).filter(Boolean);
  if (types.length > 0) item['@type'] = types.length === 1 ? types[0] : types;
  const visit = (parent: Cheerio<any>): void => {
    parent.children().each((_, child) => {
      const el = $(child);
      const props = (el.attr('itemprop') ?? '').split(/\s+/).filter(Boolean);
      const nested = el.attr('itemscope') !== undefined;
      if (props.length > 0) {
        const value = nested ? (depth < 8 ? microdataItem($, el, depth + 1) : {}) : propValue($, el);
        for (const p of props) addProp(item, p, value);
      }
      if (!nested) visit(el);
    });
  };
  visit(scope);
  return item;
}

/** The page's top-level microdata items (itemscope without itemprop), nested items inside them. */
export function microdataItems($: CheerioAPI): LdNode[] {
  const items: LdNode[] = [];
  $('[itemscope]').each((_, el) => {
    const node = $(el);
    if (node.attr('itemprop') === undefined) items.push(microdataItem($, node, 0));
  });
  return items;
}

/**
 * Open Graph and Facebook product tags (`og:type` product, `product:price:amount`,
 * `product:price:currency`, `product:availability`, `product:shipping_cost:*`,
 * and the `og:price:*` / `og:availability` variants) as one Product with one
 * Offer; null when the page declares no product.
 */
export function openGraphProduct($: CheerioAPI): LdNode | null {
  const tags = new Map<string, string>();
  $('meta').each((_, el) => {
    const key = ($(el).attr('property') ?? $(el).attr('name') ?? '').trim().toLowerCase();
    const content = $(el).attr('content');
    if (key && content !== undefined && !tags.has(key)) tags.set(key, content.trim());
  });
  const tag = (...keys: string[]) => keys.map((k) => tags.get(k)).find((v) => v !== undefined && v !== '');
  const price = tag('product:price:amount', 'og:price:amount', 'product:sale_price:amount');
  const isProduct = /product/i.test(tag('og:type') ?? '');
  if (!isProduct && price === undefined) return null;
  const shippingAmount = tag('product:shipping_cost:amount');
  const offer: LdNode = {
    '@type': 'Offer',
    ...(price !== undefined ? { price } : {}),
    ...(tag('product:price:currency', 'og:price:currency', 'product:sale_price:currency')
      ? { priceCurrency: tag('product:price:currency', 'og:price:currency', 'product:sale_price:currency') }
      : {}),
    ...(tag('product:availability', 'og:availability')
      ? { availability: tag('product:availability', 'og:availability') }
      : {}),
    ...(tag('og:site_name') ? { seller: { name: tag('og:site_name') } } : {}),
    ...(shippingAmount !== undefined
      ? {
          shippingDetails: { shippingRate: { value: shippingAmount, currency: tag('product:shipping_cost:currency') } },
        }
      : {}),
  };
  return { '@type': 'Product', name: tag('og:title', 'twitter:title'), url: tag('og:url'), offers: offer };
}
