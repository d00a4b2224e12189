import {
  constants,
  mkdtempSync,
  openSync,
  closeSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alignedBuffers } from '../../lib/diskperf/aligned';

describe('aligned buffers for O_DIRECT', () => {
  it('gives separate, non-overlapping 4096-byte buffers', () => {
    const buffers = alignedBuffers(20, 4096);
    expect(buffers).toHaveLength(20);
    buffers.forEach((b, i) => b.fill(i));
    buffers.forEach((b, i) => {
      expect(b.length).toBe(4096);
      expect(b.every((byte) => byte === i)).toBe(true);
      expect(b.byteOffset % 4096).toBe(0);
    });
  });

  it('refuses sizes that are not a multiple of 4096', () => {
    expect(() => alignedBuffers(1, 1000)).toThrow('multiple of 4096');
  });

  const dir = mkdtempSync(join(tmpdir(), 'mb-aligned-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'probe.dat');
  writeFileSync(file, Buffer.alloc(64 * 1024, 7));
  let directFd: number | undefined;
  try {
    if (constants.O_DIRECT !== undefined)
      directFd = openSync(file, constants.O_RDONLY | constants.O_DIRECT);
  } catch {
    directFd = undefined;
  }
  const maybe = directFd === undefined ? it.skip : it;
  const why = directFd === undefined ? ` [skipped: the temp dir ${tmpdir()} refuses O_DIRECT]` : '';

  maybe(`is accepted by a real O_DIRECT read${why}`, () => {
    const fd = directFd as number;
    try {
      for (const buffer of alignedBuffers(3, 4096)) {
        expect(readSync(fd, buffer, 0, 4096, 8192)).toBe(4096);
        expect(buffer[0]).toBe(7);
      }
    } finally {
      closeSync(fd);
    }
  });
});
