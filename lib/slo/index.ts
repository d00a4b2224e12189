export { parseObjective, parseObjectives } from './objective';
export type { Objective } from './objective';
export { checkStepObjectives, addStepVerdicts, emptySloSection, describeVerdict, actualValue } from './check';
export { SLO_EXIT_CODE, sloOutcome } from './outcome';
