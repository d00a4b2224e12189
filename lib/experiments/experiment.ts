/**
 * The one shape every experiment implements (in its own folder) and the matrix drives without knowing
 * its name: parameters and sizing, what it needs of the target, how it runs one labelled
 * configuration, and the measures, charts and notes of the combined report.
 */
import type { GuardPolicy } from '../server/data-guard';
import { MongoClient, MongoClientOptions } from 'mongodb';
import { z } from 'zod';
import { ResultDocument } from '../result';

/** A write concern as the user writes it: `w` (a member count, "majority" or a tag), `j`, `wtimeoutMS`. */
export interface WriteConcernSpec {
  w?: number | string;
  j?: boolean;
  wtimeoutMS?: number;
}

export type ReadPreferenceMode =
  'primary' | 'primaryPreferred' | 'secondary' | 'secondaryPreferred' | 'nearest';

/** One labelled configuration: what differs from the experiment's defaults. */
export interface MatrixConfiguration {
  label: string;
  /** One line for the table (e.g. the seed's wording: "NORMAL, no capped"). */
  description?: string;
  writeConcern?: WriteConcernSpec;
  /** A capped collection sized to hold the whole test. */
  capped?: boolean;
  /** Where reads go (the old slaveOk = "secondary"). */
  readPreference?: ReadPreferenceMode;
  /** Overrides of the experiment's parameters for this configuration only. */
  parameters?: Record<string, unknown>;
  /** Grouped bar charts: the x-axis group and the bar within the group (default: label, one bar). */
  group?: string;
  series?: string;
}

/** 's' = seconds; 'ratio' has no unit (a coefficient of variation, busiest/idlest); 'bytes' = bytes (on disk). */
export type MeasureUnit =
  'MiB/s' | '%' | 'ms' | 'ops/s' | 'docs' | 'MiB' | 'count' | 's' | 'ratio' | 'bytes';

/** One column of the combined table; `key` indexes a row's measures. */
export interface MeasureDefinition {
  key: string;
  /** Column name in results.csv (snake_case, unit included). */
  csv: string;
  title: string;
  unit: MeasureUnit;
}

/** One grouped bar chart. One measure: x = configuration groups, bars = series. Several (same unit): x = configurations, bars = measures. */
export interface MatrixChartDefinition {
  file: string;
  title: string;
  yTitle: string;
  measures: string[];
  scale: 'linear' | 'log';
}

export type RowStatus = 'ok' | 'skipped' | 'failed' | 'interrupted' | 'not-run';

export type TopologyKind = 'standalone' | 'replicaSet' | 'sharded';

export interface TopologyFacts {
  kind: TopologyKind;
  setName?: string;
  /** Data-bearing members (hosts + passives); 1 on a standalone; unknown (undefined) through mongos. */
  dataMembers?: number;
  /** Which command answered: "hello", or "isMaster" (servers that predate hello, e.g. mongo-java-server). */
  source: 'hello' | 'isMaster';
}

export type Capability = { supported: boolean; reason?: string };

/** What the target can do, asked once on connecting; capped and w:0 only when a configuration needs them. */
export interface TargetCapabilities {
  topology: TopologyFacts;
  capped?: Capability;
  unacknowledgedWrites?: Capability;
}

/** An experiment that changes the target's setup (sharding, balancer): allowed by --setup, implied on a server the matrix starts. */
export interface SetupChanges {
  /** For --dry-run: "the matrix started this cluster, so <what it may do>". */
  mayChange: string;
  /** For setup.js on an existing deployment: "<name> <where it logs its own setup>". */
  loggedIn: string;
}

/** The seed's parameters (--scale 1), which one --scale multiplies, the default scale, and what --scale 1 means. */
export type ExperimentSizing = {
  full: Record<string, unknown>;
  scaled: string;
  defaultScale: number;
  scaleNote: string;
};

/** Where the matrix is about to run; allowSetup: --setup, or a server the matrix starts. */
export type PlanContext = { uri: string; db: string; allowSetup: boolean };

/** What the experiment learnt once on connecting (e.g. the server's RAM): for every configuration, a progress line, notes. */
export type Prepared = { shared?: Record<string, unknown>; progress?: string[]; notes?: string[] };

export interface RunContext {
  client: MongoClient;
  /** The options `client` was opened with (TLS, credentials), for a client of the experiment's own. */
  clientOptions?: MongoClientOptions;
  uri: string;
  db: string;
  matrixName: string;
  config: MatrixConfiguration;
  /** This configuration's validated parameters. */
  parameters: Record<string, unknown>;
  /** The configuration's folder, and its name inside the matrix folder (for the row's resultFile). */
  dir: string;
  relativeDir: string;
  target: ResultDocument['target'];
  serverSelectionTimeoutMS: number;
  /** --test-double as given. */
  testDouble?: boolean;
  shared: Record<string, unknown>;
  signal?: AbortSignal;
  progress: (text: string) => void;
  /** What the experiment may drop or replace in `db` (lib/server/data-guard: ours, or --drop). */
  guard: GuardPolicy;
}

export interface RunOutcome<Kept = unknown> {
  status: RowStatus;
  reason?: string;
  measures: Record<string, number | null>;
  details: Record<string, unknown>;
  /** The configuration's result document, relative to the matrix folder. */
  resultFile?: string;
  /** Kept for `finish`. */
  kept?: Kept;
}

export interface Experiment<Kept = unknown> {
  name: string;
  /** One line for --help: the seed and what it measures. */
  description: string;
  parameters: z.ZodObject;
  sizing: ExperimentSizing;
  /** The preset's configurations. */
  preset: MatrixConfiguration[];
  /** What the target must be: the matrix refuses to launch anything else and skips rows on anything else. */
  needs?: { topology?: TopologyKind; setup?: SetupChanges };
  /** Refuses parameters before anything connects (errors name `parameters.x` or the option). */
  checkParameters?(parameters: Record<string, unknown>, ctx: PlanContext): void;
  /** Refuses one configuration; `where` is its path ("...: configurations[i].parameters"). */
  checkConfiguration?(
    parameters: Record<string, unknown>,
    config: MatrixConfiguration,
    where: string,
    ctx: PlanContext,
  ): void;
  /** The settings column; default: the write concern, capped, read preference and parameters in words. */
  describeSettings?(parameters: Record<string, unknown>, config: MatrixConfiguration): string;
  /** Why the target cannot run any configuration of this experiment. */
  skipReason?(caps: TargetCapabilities): string | undefined;
  /** Connections one configuration opens at once (the pool size). */
  clientsNeeded?(parameters: Record<string, unknown>): number;
  prepare?(client: MongoClient, parameters: Array<Record<string, unknown>>): Promise<Prepared>;
  run(ctx: RunContext): Promise<RunOutcome<Kept>>;
  measures: MeasureDefinition[];
  charts: MatrixChartDefinition[];
  /** Notes for matrix.json and summary.md. */
  notes?: string[];
  /** Extra lines under summary.md's heading. */
  summaryLines?: string[];
  /**
   * Every file `run` may write in a configuration's folder, and `finish` in the matrix folder (sub-folders
   * allowed: "comparison/summary.md"), by name: the matrix judges those that exist before it starts
   * (lib/common/file-plan.ts), so a file of the user's there is never replaced without --force.
   */
  files: { configuration: readonly string[]; finish?: readonly string[] };
  /** After the last configuration: draws the kept results together; returns a note. */
  finish?(kept: Kept[], outDir: string): Promise<string | undefined>;
  /** After the matrix: drops what the experiment left behind. */
  cleanUp?(client: MongoClient, db: string, guard: GuardPolicy): Promise<void>;
  /** The collections of `db` it drops and fills: the matrix's write plan checks them before anything is probed or written. */
  collections?: string[];
  /** The same, where a configuration's parameters name them (its `collection`): every configuration's are checked. */
  collectionsOf?(parameters: Record<string, unknown>): string[];
}
