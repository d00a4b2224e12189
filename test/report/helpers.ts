import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadImage, createCanvas } from '@napi-rs/canvas';
import { ResultDocument, parseResult } from '../../lib/result';

export const FIXTURES = join(__dirname, '..', 'fixtures');

export function fixture(name: string): ResultDocument {
  const file = join(FIXTURES, name);
  return parseResult(readFileSync(file, 'utf8'), file);
}

export const COMPARISON = ['compare-w0.json', 'compare-w1.json', 'compare-j-true.json'];

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the IHDR chunk. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

export interface Pixels {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

export async function decodePng(png: Buffer): Promise<Pixels> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  return {
    width: image.width,
    height: image.height,
    data: ctx.getImageData(0, 0, image.width, image.height).data,
  };
}

/** Counts pixels in rows [top, bottom) that satisfy the predicate on (r, g, b). */
export function countPixels(
  p: Pixels,
  top: number,
  bottom: number,
  test: (r: number, g: number, b: number) => boolean,
): number {
  let n = 0;
  for (let y = top; y < bottom; y++) {
    for (let x = 0; x < p.width; x++) {
      const i = (y * p.width + x) * 4;
      if (test(p.data[i], p.data[i + 1], p.data[i + 2])) n++;
    }
  }
  return n;
}

export const isBackground = (r: number, g: number, b: number) =>
  r === 255 && g === 255 && b === 255;
export const isDark = (r: number, g: number, b: number) => r < 90 && g < 90 && b < 90;
/** The warning colour (#b00020) and anti-aliased shades of it. */
export const isWarningRed = (r: number, g: number, b: number) => r > 140 && g < 60 && b < 80;
