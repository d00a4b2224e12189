// The public face: 'mongo-bench' exports what docs/api.md documents and nothing else. A new public name
// is added to lib/index.ts, docs/api.md and the lists below in one change; building blocks go to
// 'mongo-bench/internals' (lib/internals.ts), which promises nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import * as publicEntry from '../../lib/index';
import * as internals from '../../lib/internals';

const root = join(__dirname, '..', '..');

/** The runtime names (functions, classes, constants). */
const VALUES = [
  'EXIT',
  'NotComparedError',
  'NotSteadyError',
  'RESULT_SCHEMA',
  'RegressionError',
  'RunError',
  'UsageError',
  'WORKLOAD_TEST_DEFAULTS',
  'applyTopology',
  'benchmark',
  'benchmarkOptions',
  'benchmarkWorkload',
  'buildHistory',
  'captureFromLogs',
  'compare',
  'compareRuns',
  'compareRunsOptions',
  'eDivisive',
  'expectNoRegression',
  'openStore',
  'planTopology',
  'readBenchmarkConfig',
  'readResult',
  'renderComparisonText',
  'renderReport',
  'renderScripts',
  'resultDocumentSchema',
  'run',
  'uriTarget',
  'writeCapture',
  'writeResult',
  'writeScripts',
];

/** The types (no runtime value). */
const TYPES = [
  'ApplyTopologyOptions',
  'BenchmarkControl',
  'BenchmarkEvent',
  'BenchmarkInput',
  'CaptureOutcome',
  'CapturedWorkload',
  'ChangePoint',
  'ClientLoad',
  'CompareOptions',
  'CompareRunOptions',
  'CompareRunsOptions',
  'CompareRunsOutcome',
  'Comparison',
  'EDivisiveOptions',
  'GeneratedFile',
  'HistoryDocument',
  'HistoryOptions',
  'LatencySummary',
  'LoadMachine',
  'LogCaptureOptions',
  'Namespace',
  'NoRegressionOptions',
  'NoRegressionOutcome',
  'OpSpec',
  'OpType',
  'PerSecondSample',
  'ResultDocument',
  'ResultSource',
  'ResultStore',
  'RunControl',
  'RunEvent',
  'RunFlags',
  'RunOutcome',
  'ScenarioEvent',
  'ScenarioResult',
  'ScenarioStep',
  'ServerProcessFacts',
  'ServerProduct',
  'SetupPlan',
  'ShardStorage',
  'SloSection',
  'SloVerdict',
  'StepComparison',
  'StepDataVsCache',
  'StepOplog',
  'StepOutcome',
  'StepResult',
  'StepStorage',
  'StoredResult',
  'Target',
  'TargetOrigin',
  'TargetSource',
  'TopologyInput',
  'TrialStats',
  'Verdict',
  'WorkloadBenchmarkInput',
];

/** Every name lib/index.ts exports, read from its syntax (it lists each by name: no `export *`). */
function exportedNames(source: string): { names: string[]; star: boolean } {
  const file = ts.createSourceFile('index.ts', source, ts.ScriptTarget.ES2022, false);
  const names: string[] = [];
  let star = false;
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    if (!clause) star = true;
    else if (ts.isNamedExports(clause)) names.push(...clause.elements.map((e) => e.name.text));
    else star = true;
  }
  return { names: names.sort(), star };
}

describe("the public face ('mongo-bench')", () => {
  const source = readFileSync(join(root, 'lib', 'index.ts'), 'utf8');

  it('lists every name (no export *) and exports exactly the pinned names, at most 60 at run time', () => {
    const { names, star } = exportedNames(source);
    expect(star).toBe(false);
    expect(names).toEqual([...VALUES, ...TYPES].sort());
    expect(Object.keys(publicEntry).sort()).toEqual([...VALUES].sort());
    expect(VALUES.length).toBeLessThanOrEqual(60);
  });

  it('documents every public name in docs/api.md', () => {
    const api = readFileSync(join(root, 'docs', 'api.md'), 'utf8');
    const undocumented = [...VALUES, ...TYPES].filter(
      (name) => !new RegExp('`' + name + '[`(<]').test(api),
    );
    expect(undocumented).toEqual([]);
  });

  it("keeps every public value also in 'mongo-bench/internals' (a power user moving between them loses nothing)", () => {
    const missing = VALUES.filter((name) => !(name in internals));
    expect(missing).toEqual([]);
  });
});
