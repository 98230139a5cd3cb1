import type { Static } from '@sinclair/typebox';
import type { Config } from '../../shared/config.js';
import { invalidPayload } from '../../shared/errors.js';
import type { ImageAttachment, ImageReport } from './tools-schemas.js';
import { imageSignals } from './image-signals.js';
import { fetchPage, PageReadError, sha256 } from './page-fetch.js';

/**
 * POST /v1/tools/imageReader: for each attachment, what the bytes are
 * (format and dimensions by `image-size`, size, SHA-256) and what their
 * metadata says (EXIF, GPS, XMP, IPTC by `exifr`), with the signals that
 * metadata gives and the evidence for each. Nothing is inferred from pixels.
 */

type Attachment = Static<typeof ImageAttachment>;
type Report = Static<typeof ImageReport>;

const field = (i: number, name: string) => `/attachments/${i}/${name}`;
const bad = (path: string, message: string, keyword = 'imageReader') =>
  invalidPayload(`${path.slice(1)}: ${message}`, [{ path, message, keyword }]);

/**
 * Strict base64 (standard or URL-safe, padding optional, a data: URL prefix allowed): lenient decoding would turn
 * garbage into bytes.
 */
function decodeBase64(raw: string, path: string, maxBytes: number): Buffer {
  const text = raw.replace(/^data:[\w.+-]+\/[\w.+-]+;base64,/i, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) && !/^[A-Za-z0-9_-]*={0,2}$/.test(text))
    throw bad(path, 'is not valid base64', 'base64');
  if (text.replace(/=+$/, '').length % 4 === 1) throw bad(path, 'is not valid base64 (truncated)', 'base64');
  const bytes = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
  if (bytes.length === 0) throw bad(path, 'decodes to no bytes', 'base64');
  if (bytes.length > maxBytes)
    throw bad(path, `decodes to ${bytes.length} bytes, over the ${maxBytes}-byte limit`, 'maxBytes');
  return bytes;
}

async function bytesOf(
  config: Config,
  a: Attachment,
  i: number,
  signal?: AbortSignal,
): Promise<{ bytes: Buffer; from: 'data' | 'url' }> {
  if ((a.data === undefined) === (a.url === undefined))
    throw bad(`/attachments/${i}`, 'send exactly one of data (base64) or url', 'oneOf');
  if (a.data !== undefined)
    return { bytes: decodeBase64(a.data, field(i, 'data'), config.IMAGE_MAX_BYTES), from: 'data' };
  try {
    const page = await fetchPage(a.url!, {
      allowPrivate: config.AWP_ALLOW_PRIVATE_EGRESS,
      signal,
      timeoutMs: config.WEB_PAGE_TIMEOUT_MS,
      maxBytes: config.IMAGE_MAX_BYTES,
      accept: 'image/*',
    });
    if (page.status < 200 || page.status >= 300)
      throw new PageReadError('unreachable', `the image URL answered HTTP ${page.status}`);
    return { bytes: page.body, from: 'url' };
  } catch (err) {
    if (err instanceof PageReadError) throw err.toAppError(field(i, 'url').slice(1));
    throw err;
  }
}

const str = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : null;
const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? Math.round(v * 1e6) / 1e6 : null;
type Segments = Record<string, Record<string, unknown> | undefined>;

/** The image libraries, loaded on the first image read (a process that reads none does not carry them). */
let libs: Promise<[typeof import('exifr'), typeof import('image-size')]> | undefined;
const imageLibs = () => (libs ??= Promise.all([import('exifr'), import('image-size')]));

/**
 * EXIF, GPS, XMP and IPTC as exifr reads them, raw (no date revival: EXIF times have no zone, and the server's must not
 * be added).
 */
async function metadataOf(bytes: Buffer): Promise<Segments> {
  const exifr = (await imageLibs())[0].default;
  try {
    return ((await exifr.parse(bytes, {
      tiff: true,
      exif: true,
      gps: true,
      xmp: true,
      iptc: true,
      icc: false,
      jfif: false,
      ihdr: false,
      mergeOutput: false,
      reviveValues: false,
      translateValues: false,
    })) ?? {}) as Segments;
  } catch {
    // A format exifr does not read (GIF, BMP, SVG) carries none of these blocks.
    return {};
  }
}

/**
 * The `action`s of XMP's xmpMM:History (exifr reads the rdf:Seq as a list of stEvt objects, or one when it has one).
 */
function historyActions(seg: Segments): string[] {
  const history = seg.xmpMM?.History;
  const list = Array.isArray(history) ? history : history ? [history] : [];
  return list.map((h) => str((h as Record<string, unknown>)?.action) ?? 'unnamed step').slice(0, 50);
}

async function readOne(config: Config, a: Attachment, i: number, signal?: AbortSignal): Promise<Report> {
  const { bytes, from } = await bytesOf(config, a, i, signal);
  const { imageSize } = (await imageLibs())[1];
  let size: { width?: number; height?: number; type?: string };
  try {
    size = imageSize(bytes);
  } catch {
    throw bad(
      field(i, from),
      'is not an image format this reader knows (JPEG, PNG, GIF, WebP, HEIC, TIFF, AVIF, BMP, SVG …)',
      'imageFormat',
    );
  }
  const seg = await metadataOf(bytes);
  const gps = seg.gps;
  const lat = num(gps?.latitude);
  const lon = num(gps?.longitude);
  const exif: Report['exif'] = {
    make: str(seg.ifd0?.Make),
    model: str(seg.ifd0?.Model),
    software: str(seg.ifd0?.Software),
    dateTimeOriginal: str(seg.exif?.DateTimeOriginal),
    createDate: str(seg.exif?.CreateDate),
    modifyDate: str(seg.ifd0?.ModifyDate),
    gps: lat !== null && lon !== null ? { latitude: lat, longitude: lon, altitude: num(gps?.GPSAltitude) } : null,
  };
  const creatorTool = str(seg.xmp?.CreatorTool);
  const actions = historyActions(seg);
  const iptc = Boolean(seg.iptc && Object.keys(seg.iptc).length > 0);
  // Every block exifr was asked for is metadata (EXIF IFDs, GPS, each XMP namespace, IPTC); image structure (JFIF,
  // IHDR) is not asked for.
  const metadata = Object.values(seg).some(
    (block) => block && typeof block === 'object' && Object.keys(block).length > 0,
  )
    ? 'present'
    : 'none';
  const format = size.type ?? null;
  return {
    name: a.name,
    declaredMime: a.mime,
    from,
    format,
    width: size.width ?? null,
    height: size.height ?? null,
    bytes: bytes.length,
    sha256: sha256(bytes),
    metadata,
    exif,
    xmp: { creatorTool, historyActions: actions.length },
    iptc,
    signals: imageSignals({
      format,
      declaredMime: a.mime,
      metadata,
      exif,
      creatorTool,
      historyActions: actions,
      iptc,
      photoshopXmp: Boolean(seg.photoshop && Object.keys(seg.photoshop).length > 0),
    }),
  };
}

/**
 * Reads every attachment, in order; the first one that cannot be read fails the call naming its field, and nothing is
 * half-answered.
 */
export async function readImages(config: Config, attachments: Attachment[], signal?: AbortSignal): Promise<Report[]> {
  const reports: Report[] = [];
  for (const [i, a] of attachments.entries()) reports.push(await readOne(config, a, i, signal));
  return reports;
}
