/**
 * Write then rename, so a reader (a report, a browser refreshing index.html mid-run, a second look
 * at results.json) never sees half a file. The temp file sits beside the target (same filesystem,
 * so the rename is atomic) and is removed when the write fails.
 */
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

let tempCounter = 0;

export async function writeFileAtomically(path: string, data: string | Buffer): Promise<void> {
  // pid + counter: unique across processes and across concurrent writes in this one.
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}-${++tempCounter}.tmp`);
  try {
    await writeFile(temp, data);
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

/** A JSON document, pretty-printed with a final newline; creates the folder first. */
export async function writeJsonAtomically(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomically(path, `${JSON.stringify(value, null, 2)}\n`);
}
