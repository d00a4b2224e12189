// The topology part of the library: plan a deployment, render it, apply it.
// TOPOLOGY_OPTIONS (the option table) stays inside: run, matrix and scripts import it from ./options.
export {
  TOPOLOGY_KINDS,
  TOPOLOGY_DEFAULTS,
  parsePresplit,
  resolveTopologyOptions,
} from './options';
export type {
  TopologyKind,
  PresplitRange,
  TopologyAuth,
  TopologyOptions,
  TopologyInput,
  ResolvedOptions,
} from './options';
export * from './server-version';
export * from './model';
export * from './split';
export * from './plan';
export { renderMongosh, renderMongoshScript } from './render-mongosh';
export type { MongoshScript, ScriptHeading } from './render-mongosh';
export {
  renderStartScript,
  renderStartMongosScript,
  renderStopScript,
  startCommandWords,
  describeProcess,
  DATA_DIR_ENV,
  CACHE_GB_ENV,
} from './render-start-sh';
export * from './cache-size';
export { stopTierOf } from './stop-order';
export { RUN_DOCUMENT_FIELDS, isRunDocumentField } from './run-documents';
export { renderReadme } from './render-readme';
export { renderPlanTable } from './render-table';
export { renderScriptFiles } from './files';
export type { GeneratedFile } from './files';
export { scriptsCommandLine, shellWord } from './command-line';
export * from './apply';

import { resolveTopologyOptions, TopologyInput } from './options';
import { buildTopology } from './model';
import { buildSetupPlan, PlanOptions, SetupPlan } from './plan';
import { PathStyle } from '../config/validate';

/** Options in, plan out: validation, defaults, the model and the steps, with every warning collected. */
export function planFromOptions(
  input: TopologyInput,
  style: PathStyle = 'flag',
  planOptions: PlanOptions = {},
): SetupPlan {
  const { options, warnings } = resolveTopologyOptions(input, style);
  const plan = buildSetupPlan(buildTopology(options), planOptions);
  return { ...plan, warnings: [...warnings, ...plan.warnings] };
}
