/** Topologies from code: plan one, render its scripts (the files `mongo-bench scripts` writes), apply it. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MongoClientOptions } from 'mongodb';
import {
  applyPlan as applySteps,
  ApplyOptions,
  driverConnector,
  GeneratedFile,
  planFromOptions,
  renderScriptFiles,
  SetupPlan,
  StepOutcome,
  TopologyInput,
} from '../topology';

/** Options (as `mongo-bench scripts` takes them, camelCase) in, the setup plan out; errors name the option. */
export function planTopology(input: TopologyInput): SetupPlan {
  return planFromOptions(input, 'config');
}

/** The start/stop shell scripts, the mongosh setup scripts and a README, as { file, text } (nothing written). */
export function renderScripts(plan: SetupPlan): GeneratedFile[] {
  return renderScriptFiles(plan);
}

/** Writes renderScripts(plan) into outDir (shell scripts executable); returns the paths. */
export async function writeScripts(plan: SetupPlan, outDir: string): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const written: string[] = [];
  for (const f of renderScriptFiles(plan)) {
    const path = join(outDir, f.file);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, f.text, { mode: f.executable ? 0o755 : 0o644 });
    written.push(path);
  }
  return written;
}

export interface ApplyTopologyOptions extends ApplyOptions {
  /** Send every step to this one deployment (e.g. an existing cluster's mongos) instead of each step's own address. */
  uri?: string;
  clientOptions?: MongoClientOptions;
}

/**
 * Applies the plan's steps through the Node driver, in order, to processes that are already running
 * (start them with the plan's 00-start.sh, or your own way). Steps already done are skipped.
 */
export async function applyTopology(
  plan: SetupPlan,
  options: ApplyTopologyOptions = {},
): Promise<StepOutcome[]> {
  const { uri, clientOptions, ...apply } = options;
  const connector = driverConnector({ uri, clientOptions, credentials: apply.credentials });
  try {
    return await applySteps(plan, connector.connect, apply);
  } finally {
    await connector.close();
  }
}
