// @ts-check
// Draws MCP Relay's icon set (16, 32, 48 and 128 px PNGs beside this script) without any
// dependency: a rounded square in the product's blue with two white arrows passing each other
// (a relay: the chat's call goes out, the tool's result comes back). Shapes are described as
// inside/outside tests and every pixel is supersampled 4×4, so small sizes stay crisp.
// Run: node extension/icons/make-icons.mjs (the PNGs are committed; manifest.json names them).
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const SIZES = [16, 32, 48, 128];

/** @param {number} x @param {number} y (unit square) */
function roundedSquare(x, y) {
  const r = 0.22, m = 0.02;
  const cx = Math.min(Math.max(x, m + r), 1 - m - r), cy = Math.min(Math.max(y, m + r), 1 - m - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r && x >= m && x <= 1 - m && y >= m && y <= 1 - m;
}

/**
 * An arrow along y = `y0`, from x0 to x1 (its head at x1).
 * @param {number} x @param {number} y @param {number} y0 @param {number} x0 @param {number} x1
 */
function arrow(x, y, y0, x0, x1) {
  const dir = Math.sign(x1 - x0), head = 0.17, shaft = 0.055;
  const along = (x - x0) * dir, len = Math.abs(x1 - x0);
  if (along >= 0 && along <= len - head && Math.abs(y - y0) <= shaft) return true;
  const into = len - along; // distance back from the tip
  return into >= 0 && into <= head && Math.abs(y - y0) <= into * 0.95;
}

/** RGBA of one point of the unit square. @param {number} x @param {number} y */
function paint(x, y) {
  if (!roundedSquare(x, y)) return [0, 0, 0, 0];
  if (arrow(x, y, 0.36, 0.2, 0.82) || arrow(x, y, 0.66, 0.8, 0.18)) return [255, 255, 255, 255];
  // A diagonal gradient from blue to violet.
  const t = (x + y) / 2;
  return [Math.round(43 + t * 60), Math.round(89 - t * 30), Math.round(195 + t * 10), 255];
}

/** @param {number} size @returns {Buffer} raw RGBA rows, each with PNG's filter byte */
function raster(size) {
  const S = 4;
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let py = 0; py < size; py++) {
    rows[py * (size * 4 + 1)] = 0;
    for (let px = 0; px < size; px++) {
      const acc = [0, 0, 0, 0];
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const c = paint((px + (sx + 0.5) / S) / size, (py + (sy + 0.5) / S) / size);
          // Premultiplied, so edges blend towards transparent, not black.
          acc[0] += c[0] * c[3]; acc[1] += c[1] * c[3]; acc[2] += c[2] * c[3]; acc[3] += c[3];
        }
      }
      const o = py * (size * 4 + 1) + 1 + px * 4;
      const a = acc[3] / (S * S);
      rows[o] = a ? Math.round(acc[0] / acc[3]) : 0;
      rows[o + 1] = a ? Math.round(acc[1] / acc[3]) : 0;
      rows[o + 2] = a ? Math.round(acc[2] / acc[3]) : 0;
      rows[o + 3] = Math.round(a);
    }
  }
  return rows;
}

const CRC = new Int32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
/** @param {Buffer} buf */
function crc32(buf) {
  let c = -1;
  for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}
/** @param {string} type @param {Buffer} data */
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** The PNG file of one size. @param {number} size */
export function png(size) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; ihdr[9] = 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0; // 8-bit RGBA
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raster(size), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const s of SIZES) writeFileSync(join(HERE, `icon-${s}.png`), png(s));
}
