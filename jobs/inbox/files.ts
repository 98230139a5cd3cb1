/** What a proof file's bytes are, by their first bytes (a declared type is believed only when they agree). Pure. */
export function sniffType(data: Buffer): string | null {
  const starts = (...bytes: number[]) => bytes.every((b, i) => data[i] === b);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return 'application/pdf'; // %PDF-
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (data.subarray(0, 6).toString('latin1') === 'GIF87a' || data.subarray(0, 6).toString('latin1') === 'GIF89a')
    return 'image/gif';
  if (data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  // Text: valid UTF-8 without control bytes other than tab, newline and carriage return.
  const decoded = new TextDecoder('utf-8', { fatal: false }).decode(data);
  if (!decoded.includes('\uFFFD') && !/[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/.test(decoded)) return 'text/plain';
  return null;
}
