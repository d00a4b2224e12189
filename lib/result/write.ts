/** Writes a result document atomically (temp file + rename): a reader never sees half a file. */
import { writeJsonAtomically } from '../common/atomic-write';
import type { ResultDocument } from './document';

export async function writeResultFile(path: string, doc: ResultDocument): Promise<void> {
  await writeJsonAtomically(path, doc);
}
