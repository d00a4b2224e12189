/**
 * The served page (run --serve): the report page of the result so far, with the served CSP (which lets it
 * reach /events on the server it came from) and the served script above the report (page/served-script.ts).
 * One page, two ways of getting its data: the file page (index.html) embeds its data and reaches nothing;
 * this one embeds the same result, and the run's seconds arrive from the server as they happen.
 */
import type { ResultDocument } from '../result';
import { pngCharts } from './chart-registry';
import { reportPageModel } from './index-html';
import { renderPage, SERVED_CONTENT_SECURITY_POLICY } from './page/page';
import { SERVED_SCRIPT } from './page/served-script';

/** One second of the step now running, as the served page shows it. */
export interface ServedSecond {
  clients: number;
  trial: number;
  phase: 'warmup' | 'measure';
  second: number;
  reads: number;
  writes: number;
  errors: number;
}

/** What the page embeds besides the result: the seconds it would have missed, and the end once there. */
export interface ServedState {
  seconds: ServedSecond[];
  /** Set once the run has ended: where index.html was written, and how the run ended when not well. */
  final?: { indexHtml?: string; message?: string };
}

/** The page at `/`: the result so far (none before the first step ends) under the run's live section. */
export function renderServedPage(
  result: ResultDocument | undefined,
  state: ServedState,
  title: string,
): string {
  const results = result && result.steps.length > 0 ? [result] : [];
  const model =
    results.length > 0
      ? reportPageModel(results, pngCharts(results))
      : {
          title,
          blocks: [
            {
              kind: 'text' as const,
              text: 'No step has ended yet: the charts and tables of the report appear here as each one does.',
            },
          ],
          data: { results },
        };
  return renderPage(
    { ...model, data: { ...model.data, served: state } },
    {
      csp: SERVED_CONTENT_SECURITY_POLICY,
      script: SERVED_SCRIPT,
      icon: 'data:,',
      chartLibraries: true,
    },
  );
}
