/**
 * The matrix's end on the target: the experiment draws its configurations together, matrix.json says
 * whether every configuration ran (an interrupt leaves the rest "not-run", saying so), and the combined
 * report is written beside it, also when the run was cut short.
 */
import { abortReason, matrixPath, MatrixSession, saveMatrix } from './matrix-session';
import { writeMatrixReport } from './write-matrix-report';

export async function finishMatrix(session: MatrixSession): Promise<void> {
  const { doc, signal } = session;
  // The experiment draws its configurations together (e.g. comparison/) and says so in a note.
  const finished = await session.experiment.finish?.(session.kept, session.options.outDir);
  if (finished) doc.notes.push(finished);
  doc.finishedAt = new Date().toISOString();
  if (signal.aborted) {
    const ran = doc.rows.filter((r) => r.status !== 'not-run').length;
    doc.complete = false;
    doc.incompleteReason = `interrupted (${abortReason(signal)}) after ${ran} of ${doc.rows.length} configurations`;
    for (const row of doc.rows)
      if (row.status === 'not-run') row.reason = 'not run: the matrix was interrupted';
  } else {
    doc.complete = true;
  }
  await saveMatrix(session);
}

/** summary.md, results.csv and the charts; the written event names them after matrix.json. */
export async function reportMatrix(session: MatrixSession): Promise<void> {
  const files = await writeMatrixReport(session.doc, session.options.outDir);
  session.emit({ type: 'written', files: [matrixPath(session), ...files] });
}
