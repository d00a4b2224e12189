export { parseObjective, parseObjectives, checkObjectiveScopes } from './objective';
export type { Objective } from './objective';
export {
  checkStepObjectives,
  addStepVerdicts,
  addBestVerdicts,
  emptySloSection,
  describeVerdict,
  actualValue,
} from './check';
export { SLO_EXIT_CODE, sloOutcome } from './outcome';
