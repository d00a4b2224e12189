/** What a run through agents adds to the result document: who ran it, and each agent's part of each step. */
import type { ClientLoad } from '../metrics/client-load';
import type { LatencySummary } from '../metrics/result';

export interface AgentInfo {
  name: string;
  host: string;
  cores: number;
  version: string;
  /** Control server's clock minus the agent's (ms), as measured when it joined, and that sample's round trip. */
  clockOffsetMs: number;
  clockRttMs: number;
}

/** The result document's `agents` entry. */
export interface AgentsSection {
  /** Credentials removed. */
  controlUri: string;
  controlDb: string;
  runId: string;
  /** The coordinator's own offset to the control server (it sets the start instants on that clock). */
  coordinatorClockOffsetMs: number;
  agents: AgentInfo[];
}

/** One agent's part of one trial of a step (StepResult's `agents`). */
export interface AgentStepFigures {
  agent: string;
  /** Trial (1-based) when the step ran several. */
  trial?: number;
  /** Its clients: indexes first .. first + count - 1. */
  first: number;
  count: number;
  /** lost: it stopped heartbeating mid-step; its figures are only its last progress report. */
  status: 'ok' | 'interrupted' | 'failed' | 'lost';
  error?: string;
  ops: { reads: number; writes: number; errors: number };
  opsPerSec: number;
  latencyMicros?: { reads: LatencySummary; writes: LatencySummary };
  clientBound?: boolean;
  client?: ClientLoad;
}
