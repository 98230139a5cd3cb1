import { crc32, deflateSync } from 'node:zlib';

/**
 * Images built byte by byte for the image reader's tests: a baseline JPEG
 * with an EXIF block (camera, software, timestamps, GPS) written the way
 * cameras and editors write it (TIFF IFDs in an APP1 segment), and a bare
 * PNG. Nothing here comes from a library under test.
 */

type Entry =
  | { tag: number; ascii: string }
  | { tag: number; long: number }
  | { tag: number; rationals: Array<[number, number]> }
  | { tag: number; bytes: number[] };

const TYPE = { byte: 1, ascii: 2, long: 4, rational: 5 } as const;

function encodeEntry(e: Entry): { type: number; count: number; data: Buffer } {
  if ('ascii' in e) {
    const data = Buffer.from(`${e.ascii}\0`, 'latin1');
    return { type: TYPE.ascii, count: data.length, data };
  }
  if ('long' in e) {
    const data = Buffer.alloc(4);
    data.writeUInt32LE(e.long);
    return { type: TYPE.long, count: 1, data };
  }
  if ('bytes' in e) return { type: TYPE.byte, count: e.bytes.length, data: Buffer.from(e.bytes) };
  const data = Buffer.alloc(8 * e.rationals.length);
  e.rationals.forEach(([n, d], i) => {
    data.writeUInt32LE(n, i * 8);
    data.writeUInt32LE(d, i * 8 + 4);
  });
  return { type: TYPE.rational, count: e.rationals.length, data };
}

const ifdSize = (entries: Entry[]) =>
  2 +
  12 * entries.length +
  4 +
  entries.map(encodeEntry).reduce((n, x) => n + (x.data.length > 4 ? x.data.length + (x.data.length % 2) : 0), 0);

/** One IFD at `offset` (from the TIFF header), its values over 4 bytes placed right after it. */
function ifd(entries: Entry[], offset: number): Buffer {
  const sorted = [...entries].sort((a, b) => a.tag - b.tag);
  const head = Buffer.alloc(2 + 12 * sorted.length + 4);
  const extra: Buffer[] = [];
  let dataOffset = offset + head.length;
  head.writeUInt16LE(sorted.length, 0);
  sorted.forEach((e, i) => {
    const { type, count, data } = encodeEntry(e);
    const at = 2 + i * 12;
    head.writeUInt16LE(e.tag, at);
    head.writeUInt16LE(type, at + 2);
    head.writeUInt32LE(count, at + 4);
    if (data.length <= 4) data.copy(head, at + 8);
    else {
      head.writeUInt32LE(dataOffset, at + 8);
      const padded = data.length % 2 ? Buffer.concat([data, Buffer.alloc(1)]) : data;
      extra.push(padded);
      dataOffset += padded.length;
    }
  });
  return Buffer.concat([head, ...extra]);
}

export interface ExifFields {
  make?: string;
  model?: string;
  software?: string;
  /** EXIF's own format: "2024:05:01 10:00:00". */
  modifyDate?: string;
  dateTimeOriginal?: string;
  createDate?: string;
  gps?: { lat: number; lon: number };
}

const dms = (deg: number): Array<[number, number]> => {
  const a = Math.abs(deg);
  const d = Math.floor(a);
  const m = Math.floor((a - d) * 60);
  const s = Math.round(((a - d) * 60 - m) * 60 * 10000);
  return [
    [d, 1],
    [m, 1],
    [s, 10000],
  ];
};

/** A little-endian TIFF structure with IFD0, the Exif IFD and the GPS IFD, as in a camera's APP1 segment. */
export function exifTiff(f: ExifFields): Buffer {
  const ifd0: Entry[] = [];
  if (f.make) ifd0.push({ tag: 0x010f, ascii: f.make });
  if (f.model) ifd0.push({ tag: 0x0110, ascii: f.model });
  if (f.software) ifd0.push({ tag: 0x0131, ascii: f.software });
  if (f.modifyDate) ifd0.push({ tag: 0x0132, ascii: f.modifyDate });
  const exif: Entry[] = [];
  if (f.dateTimeOriginal) exif.push({ tag: 0x9003, ascii: f.dateTimeOriginal });
  if (f.createDate) exif.push({ tag: 0x9004, ascii: f.createDate });
  const gps: Entry[] = f.gps
    ? [
        { tag: 0x0000, bytes: [2, 3, 0, 0] },
        { tag: 0x0001, ascii: f.gps.lat >= 0 ? 'N' : 'S' },
        { tag: 0x0002, rationals: dms(f.gps.lat) },
        { tag: 0x0003, ascii: f.gps.lon >= 0 ? 'E' : 'W' },
        { tag: 0x0004, rationals: dms(f.gps.lon) },
      ]
    : [];
  // Pointer entries take part in IFD0's size, so they are counted before their values are known.
  const withPointers = [
    ...ifd0,
    ...(exif.length ? [{ tag: 0x8769, long: 0 }] : []),
    ...(gps.length ? [{ tag: 0x8825, long: 0 }] : []),
  ];
  const exifAt = 8 + ifdSize(withPointers);
  const gpsAt = exifAt + (exif.length ? ifdSize(exif) : 0);
  const pointers: Entry[] = [
    ...(exif.length ? [{ tag: 0x8769, long: exifAt }] : []),
    ...(gps.length ? [{ tag: 0x8825, long: gpsAt }] : []),
  ];
  const header = Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00]);
  return Buffer.concat([
    header,
    ifd([...ifd0, ...pointers], 8),
    ...(exif.length ? [ifd(exif, exifAt)] : []),
    ...(gps.length ? [ifd(gps, gpsAt)] : []),
  ]);
}

const segment = (marker: number, body: Buffer) => {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0xff00 | marker, 0);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([head, body]);
};

/**
 * A baseline grayscale JPEG of `width` × 8 pixels (width a multiple of 8),
 * mid-grey, that decoders display: one quantisation table, one-code Huffman
 * tables (DC difference 0, end of block), one 8×8 block per 8 columns.
 */
export function jpeg(width: number, exif?: ExifFields, extra: Buffer[] = []): Buffer {
  const blocks = width / 8;
  const sof = Buffer.from([8, 0, 8, width >> 8, width & 0xff, 1, 1, 0x11, 0]);
  const huffman = (tableClass: number) => Buffer.from([tableClass, 1, ...new Array(15).fill(0), 0]);
  const bits = '00'.repeat(blocks).padEnd(Math.ceil((2 * blocks) / 8) * 8, '1');
  const scan = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    ...(exif ? [segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), exifTiff(exif)]))] : []),
    ...extra,
    segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])),
    segment(0xc0, sof),
    segment(0xc4, huffman(0x00)),
    segment(0xc4, huffman(0x10)),
    segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])),
    scan,
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** An XMP APP1 segment as Adobe software writes it: CreatorTool and an xmpMM:History of stEvt steps. */
export function xmpSegment(creatorTool: string, actions: string[]): Buffer {
  const steps = actions
    .map(
      (a, i) =>
        `<rdf:li stEvt:action="${a}" stEvt:when="2024-05-0${i + 2}T09:00:00+02:00" ` +
        `stEvt:softwareAgent="${creatorTool}"/>`,
    )
    .join('');
  const packet =
    `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ` +
    `xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
    `<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" ` +
    `xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/" ` +
    `xmlns:stEvt="http://ns.adobe.com/xap/1.0/sType/ResourceEvent#" ` +
    `xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmp:CreatorTool="${creatorTool}" ` +
    `photoshop:ColorMode="3">` +
    `<xmpMM:History><rdf:Seq>${steps}</rdf:Seq></xmpMM:History></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket ` +
    `end="w"?>`;
  return segment(
    0xe1,
    Buffer.concat([Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1'), Buffer.from(packet, 'utf8')]),
  );
}

/** An APP13 Photoshop image-resources segment holding an IPTC block (resource 0x0404) with a caption. */
export function iptcSegment(caption: string): Buffer {
  const text = Buffer.from(caption, 'utf8');
  const dataset = Buffer.concat([Buffer.from([0x1c, 2, 120, text.length >> 8, text.length & 0xff]), text]);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(dataset.length);
  const resource = Buffer.concat([
    Buffer.from('8BIM', 'latin1'),
    Buffer.from([0x04, 0x04, 0, 0]),
    size,
    dataset,
    Buffer.alloc(dataset.length % 2),
  ]);
  return segment(0xed, Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), resource]));
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A bare RGB PNG (IHDR, IDAT, IEND: no text, EXIF or XMP chunk) of the given size, in one colour. */
export function png(width: number, height: number, rgb: [number, number, number] = [200, 40, 40]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(new Array(width).fill(rgb).flat())]);
  const raw = Buffer.concat(new Array(height).fill(row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
