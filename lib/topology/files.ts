/** Everything `mongo-bench scripts` writes for a plan, as (file name, text) pairs. */
import { SetupPlan } from './plan';
import { renderMongosh } from './render-mongosh';
import { renderReadme } from './render-readme';
import { renderStartScript } from './render-start-sh';

export interface GeneratedFile {
  /** Relative to the output folder. */
  file: string;
  text: string;
  executable?: boolean;
}

export function renderScriptFiles(plan: SetupPlan): GeneratedFile[] {
  const scripts = renderMongosh(plan);
  return [
    { file: '00-start.sh', text: renderStartScript(plan), executable: true },
    ...scripts.map((s) => ({ file: s.file, text: s.text })),
    { file: 'README.md', text: renderReadme(plan, scripts) },
  ];
}
