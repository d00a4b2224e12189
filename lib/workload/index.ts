// The workload area's public surface: op spec, templates, presets, engine, loader, sweep, legacy script.
export { parseOps, OP_NAMES, OP_FIELDS, opClass } from './language/op-spec';
export type { OpSpec, OpType, OpClass, Namespace } from './language/op-spec';
export { compileTemplate, TemplateScope, TEMPLATE_OPERATORS } from './language/template';
export type { ClientState, Generator } from './language/template';
export { Prng } from './language/prng';
export { prepareWorkload, bindWorkload } from './engine/compile-ops';
export type { PreparedWorkload, BoundOp, BindOptions } from './engine/compile-ops';
export { OURS, unplannedWrites, workloadWrites } from './engine/write-handles';
export type { WriteScope } from './engine/write-handles';
export { runStep } from './engine/engine';
export type { StepPlan, TickEvent, StepCallbacks } from './engine/engine';
export {
  runParallelStep,
  workersForStep,
  autoWorkers,
  splitClients,
  liveWorkerThreads,
} from './engine/parallel-step';
export type {
  ParallelStepInput,
  ParallelStepMeasurement,
  StepWorkload,
} from './engine/parallel-step';
export { clientCountsUpTo } from './language/sweep';
export { documentFactory, documentPaddingLength, INDEXED_FIELDS } from './language/documents';
export { presetOps, PRESET_NAMES, PRESET_DESCRIPTIONS, isPresetName } from './language/presets';
export type { PresetName } from './language/presets';
export { readWorkloadFile, parseWorkloadText } from './language/workload-file';
export { renderLegacyBenchRunScript, scriptFileName, legacyOp } from './language/legacy-script';
export type { LegacyScriptOptions } from './language/legacy-script';
export { connectTarget, describeTarget, warmConnections } from '../server/connect';
