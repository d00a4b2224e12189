/** Writes a result document atomically (temp file + rename): a reader never sees half a file. */
import { mkdir, rename, writeFile, unlink } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { ResultDocument } from './result';

export async function writeResultFile(path: string, doc: ResultDocument): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    await writeFile(temp, `${JSON.stringify(doc, null, 2)}\n`, 'utf8');
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}
