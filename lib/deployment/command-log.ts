/**
 * The run's output folder besides results.json and the report: command-log.txt (every process
 * command line and every admin command, in order, as the MOST seed logged its console) and
 * setup.js (the mongosh equivalent of what was applied). Credentials are removed from both.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { redactCommand, redactText } from '../security/redact';
import { CommandLogEntry, formatCommandLogEntry, renderMongoshScript, SetupPlan, SetupStep } from '../topology';

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
    const line = formatCommandLogEntry({ ...entry, command: redactCommand(entry.command, this.secrets) });
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
export function renderSetupJs(plan: SetupPlan | undefined, steps: SetupStep[], why: { purpose: string; nothingBecause: string }, secrets: readonly string[] = []): string {
  if (!plan || steps.length === 0) {
    return [
      `// ${SETUP_FILE}: what mongo-bench applied to the deployment before the benchmark.`,
      `// Nothing: ${why.nothingBecause}.`,
      '// (The benchmark itself drops and loads its own collection; see command-log.txt.)',
      '',
    ].join('\n');
  }
  const text = renderMongoshScript(plan, steps, { file: SETUP_FILE, purpose: `what mongo-bench applied before the benchmark (${why.purpose})` });
  return redactText(text, secrets);
}

export function writeSetupJs(outDir: string, text: string): string {
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, SETUP_FILE);
  fs.writeFileSync(file, text);
  return file;
}
