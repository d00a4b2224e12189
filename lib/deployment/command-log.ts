/**
 * The run's output folder besides results.json and the report: command-log.txt (every process
 * command line and every admin command, in order, as the MOST seed logged its console) and
 * setup.js (the mongosh equivalent of what was applied). Credentials are removed from both.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { redactCommand, redactText } from '../security/redact';
import {
  CommandLogEntry,
  formatCommandLogEntry,
  renderMongoshScript,
  SetupPlan,
  SetupStep,
} from '../topology';
import type { TargetPlan } from './plan';

export const COMMAND_LOG_FILE = 'command-log.txt';
export const SETUP_FILE = 'setup.js';

/**
 * command-log.txt, appended to as things happen (synchronously: a crash keeps what was logged).
 * Nothing touches the disk until `open()`: a run that fails before it reaches any server (bad
 * binary, no mongod, unreachable URI) leaves no folder behind.
 */
export class CommandLog {
  readonly file: string;
  private pending: string[] | undefined = [];

  constructor(
    private readonly outDir: string,
    private readonly secrets: readonly string[] = [],
  ) {
    this.file = path.join(outDir, COMMAND_LOG_FILE);
  }

  get opened(): boolean {
    return this.pending === undefined;
  }

  /** Creates the folder and the file with everything logged so far; idempotent. */
  open(): void {
    if (!this.pending) return;
    fs.mkdirSync(this.outDir, { recursive: true });
    fs.writeFileSync(this.file, this.pending.map((l) => `${l}\n`).join(''));
    this.pending = undefined;
  }

  /** A free-text line: "# ..." for what happened, or a shell command line. */
  line(text: string): void {
    const line = redactText(text, this.secrets);
    if (this.pending) this.pending.push(line);
    else fs.appendFileSync(this.file, `${line}\n`);
  }

  note(text: string): void {
    this.line(`# ${new Date().toISOString()} ${text}`);
  }

  command(entry: CommandLogEntry): void {
    this.open();
    const line = formatCommandLogEntry({
      ...entry,
      command: redactCommand(entry.command, this.secrets),
    });
    // Commands outside the plan's numbered steps (--drop, looking at an existing cluster) carry a tag instead.
    this.line(entry.steps === 0 ? line.replace(/^\[0\/0\]/, `[${entry.description}]`) : line);
  }

  /** A process command line, just before it is spawned. */
  commandLine(text: string): void {
    this.open();
    this.line(text);
  }
}

/**
 * setup.js: the steps that were applied (or, after a failure, the ones attempted), as the mongosh
 * script `mongo-bench scripts` would write for them; for a target nothing was set up on, a script
 * that says so.
 */
export function renderSetupJs(
  plan: SetupPlan | undefined,
  steps: SetupStep[],
  why: { purpose: string; nothingBecause: string },
  secrets: readonly string[] = [],
): string {
  if (!plan || steps.length === 0) {
    return [
      `// ${SETUP_FILE}: what mongo-bench applied to the deployment before the benchmark.`,
      `// Nothing: ${why.nothingBecause}.`,
      '// (The benchmark itself drops and loads its own collection; see command-log.txt.)',
      '',
    ].join('\n');
  }
  const text = renderMongoshScript(plan, steps, {
    file: SETUP_FILE,
    purpose: `what mongo-bench applied before the benchmark (${why.purpose})`,
  });
  return redactText(text, secrets);
}

/**
 * What setup.js says the steps are, and why there are none, by where the server comes from. `who`
 * stopped ('run', 'matrix'); `uri`: the purpose on an existing deployment, and why it gets no steps
 * (`asItIs`; undefined when it gets some, as with --setup).
 */
export function setupJsWhy(
  target: TargetPlan,
  who: string,
  uri: { purpose: string; asItIs?: string },
  launchedNoun = '',
): { purpose: string; nothingBecause: string } {
  const purpose =
    target.kind === 'launched'
      ? `the setup plan of the launched ${target.plan.topology.name}${launchedNoun}`
      : uri.purpose;
  const nothingBecause =
    target.kind === 'embedded'
      ? 'the embedded MongoDB (mongodb-memory-server) gets no setup steps from mongo-bench'
      : target.kind === 'uri' && uri.asItIs !== undefined
        ? `an existing deployment (--uri) is used as it is (${uri.asItIs})`
        : target.kind === 'launched' && target.plan.steps.length === 0
          ? 'a standalone needs no setup steps'
          : `the ${who} stopped before the first setup step`;
  return { purpose, nothingBecause };
}

/**
 * setup.js for one run or matrix, in one place: the plan (replaced when its steps are planned on the
 * way, as --setup on an existing cluster does), the steps attempted (each once, when it starts
 * running: after a failure the script shows what was tried), written only once the command log is
 * opened (a run that reached no server leaves no folder behind). `secrets` is read when it writes: a
 * secret made on the way (a keyfile) is removed too.
 */
export class SetupJsRecord {
  private readonly attempted: SetupStep[] = [];
  private written = false;

  private plan: SetupPlan | undefined;

  constructor(
    private readonly outDir: string,
    private readonly log: CommandLog,
    target: TargetPlan,
    /** What the steps are, and why there are none (said in the script when nothing was applied): setupJsWhy. */
    private readonly why: { purpose: string; nothingBecause: string },
    private readonly secrets: readonly string[] = [],
  ) {
    this.plan = target.kind === 'launched' ? target.plan : undefined;
  }

  /** The plan the steps come from, once known. */
  planned(plan: SetupPlan): void {
    this.plan = plan;
  }

  /** A setup step's progress (applyPlan's onStep): a step that starts running is attempted. */
  step(event: { step: number; status: string }): void {
    const step = this.plan?.steps[event.step - 1];
    if (event.status === 'running' && step && !this.attempted.includes(step))
      this.attempted.push(step);
  }

  get hasWritten(): boolean {
    return this.written;
  }

  /** Writes (or rewrites) setup.js, if the log was opened. */
  write(): void {
    if (!this.log.opened) return;
    writeSetupJs(this.outDir, renderSetupJs(this.plan, this.attempted, this.why, this.secrets));
    this.written = true;
  }
}

export function writeSetupJs(outDir: string, text: string): string {
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, SETUP_FILE);
  fs.writeFileSync(file, text);
  return file;
}
