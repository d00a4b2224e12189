/** Everything `mongo-bench scripts` writes for a plan, as (file name, text) pairs. */
import { SetupPlan } from './plan';
import { renderMongosh } from './render-mongosh';
import { renderReadme } from './render-readme';
import { renderStartMongosScript, renderStartScript, renderStopScript } from './render-start-sh';

export interface GeneratedFile {
  /** Relative to the output folder. */
  file: string;
  text: string;
  executable?: boolean;
}

export function renderScriptFiles(plan: SetupPlan): GeneratedFile[] {
  const scripts = renderMongosh(plan);
  const sharded = plan.processes.some((p) => p.kind === 'mongos');
  return [
    { file: '00-start.sh', text: renderStartScript(plan), executable: true },
    ...scripts.map((s) => ({ file: s.file, text: s.text })),
    ...(sharded
      ? [{ file: '15-start-mongos.sh', text: renderStartMongosScript(plan), executable: true }]
      : []),
    { file: '99-stop.sh', text: renderStopScript(plan), executable: true },
    { file: 'README.md', text: renderReadme(plan, scripts) },
  ].sort((a, b) => a.file.localeCompare(b.file));
}
