import type { Static } from '@sinclair/typebox';
import type { ImageReport, ImageSignalKind } from './tools-schemas.js';

/**
 * What an image's own metadata says about its history, each signal with the
 * evidence it rests on (the tag and its value). A signal is a reason to look
 * closer, not a verdict: an editor also resizes honest photos. Pure.
 */

export type Signal = { kind: ImageSignalKind; evidence: string };
type Exif = Static<typeof ImageReport>['exif'];

/** Editors and filters whose name in Software / CreatorTool says the image went through them. */
const EDITORS = new RegExp(
  [
    String.raw`photoshop|lightroom|gimp|affinity|pixelmator|snapseed|picsart|canva|paint\.net`,
    String.raw`|facetune|luminar|capture one|darktable|rawtherapee|photopea|befunky|fotor`,
    String.raw`|vsco|meitu|airbrush|photoscape|corelDRAW|paintshop|acdsee|krita|inkscape`,
    String.raw`|photo ?director`,
  ].join(''),
  'i',
);
/** Formats whose cameras and phones write EXIF: none there means it was removed or the image was re-encoded. */
const CAMERA_FORMATS = new Set(['jpg', 'heif', 'tiff']);
const MIME_OF: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heif: 'image/heic',
  tiff: 'image/tiff',
  bmp: 'image/bmp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
};
/** Declared types that name the same format another way. */
const MIME_ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/heif': 'image/heic',
  'image/x-png': 'image/png',
};

/**
 * "2024:05:01 10:00:00" → its instant read as UTC (EXIF times have no zone; only differences between them are used).
 */
function exifTime(v: string | null): number | null {
  const m = v ? /^(\d{4})[:-](\d\d)[:-](\d\d)[ T](\d\d):(\d\d):(\d\d)/.exec(v) : null;
  if (!m) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return Number.isNaN(t) ? null : t;
}

/**
 * Timestamps that contradict each other: modified after capture, digitized at another time than taken, or modified
 * before it was taken.
 */
function timestampSignals(exif: Exif): Signal[] {
  const original = exifTime(exif.dateTimeOriginal);
  const created = exifTime(exif.createDate);
  const modified = exifTime(exif.modifyDate);
  const out: Signal[] = [];
  const MINUTE = 60_000;
  if (original !== null && modified !== null && modified - original > MINUTE) {
    out.push({
      kind: 'timestampsDisagree',
      evidence:
        `ModifyDate ${exif.modifyDate} is later than DateTimeOriginal ${exif.dateTimeOriginal}: the file was ` +
        `changed after it was taken`,
    });
  }
  if (original !== null && modified !== null && original - modified > MINUTE) {
    out.push({
      kind: 'timestampsDisagree',
      evidence: `ModifyDate ${exif.modifyDate} is earlier than DateTimeOriginal ${exif.dateTimeOriginal}`,
    });
  }
  if (original !== null && created !== null && Math.abs(created - original) > MINUTE) {
    out.push({
      kind: 'timestampsDisagree',
      evidence: `CreateDate ${exif.createDate} differs from DateTimeOriginal ${exif.dateTimeOriginal}`,
    });
  }
  return out;
}

export interface SignalInput {
  format: string | null;
  declaredMime: string;
  metadata: 'none' | 'present';
  exif: Exif;
  creatorTool: string | null;
  historyActions: string[];
  iptc: boolean;
  photoshopXmp: boolean;
}

export function imageSignals(i: SignalInput): Signal[] {
  const signals: Signal[] = [];
  for (const [tag, value] of [
    ['Software', i.exif.software],
    ['XMP CreatorTool', i.creatorTool],
  ] as const) {
    if (value && EDITORS.test(value)) signals.push({ kind: 'editingSoftware', evidence: `${tag}: "${value}"` });
  }
  if (i.historyActions.length > 0)
    signals.push({
      kind: 'editHistory',
      evidence: `XMP history lists ${i.historyActions.length} step(s): ${i.historyActions.slice(0, 5).join(', ')}`,
    });
  if (i.photoshopXmp)
    signals.push({ kind: 'editHistory', evidence: 'XMP carries Photoshop properties (photoshop: namespace)' });
  if (i.iptc)
    signals.push({
      kind: 'editHistory',
      evidence:
        'an IPTC block (Photoshop image resources) is present: editing and publishing software write it, ' +
        'cameras do not',
    });
  if (i.metadata === 'none' && i.format && CAMERA_FORMATS.has(i.format)) {
    signals.push({
      kind: 'metadataStripped',
      evidence:
        `a ${i.format.toUpperCase()} with no EXIF, XMP or IPTC: cameras and phones write EXIF, so it was ` +
        `removed or the image was re-encoded (messaging apps and social sites do both)`,
    });
  }
  signals.push(...timestampSignals(i.exif));
  if (i.exif.gps)
    signals.push({
      kind: 'gpsFix',
      evidence:
        `GPS ${i.exif.gps.latitude.toFixed(6)}, ` +
        `${i.exif.gps.longitude.toFixed(6)}${i.exif.gps.altitude !== null ? ` at ${i.exif.gps.altitude} m` : ''}`,
    });
  const declared = MIME_ALIASES[i.declaredMime.toLowerCase()] ?? i.declaredMime.toLowerCase();
  const actual = i.format ? MIME_OF[i.format] : undefined;
  if (actual && declared !== actual)
    signals.push({
      kind: 'formatMismatch',
      evidence: `declared ${i.declaredMime}, but the bytes are ${i.format!.toUpperCase()} (${actual})`,
    });
  return signals;
}
