/**
 * What the coordinator publishes for the agents: the target (without credentials), the workload and
 * the limits every step shares. Step-specific figures (clients, seconds, start) come per step. It
 * travels as JSON text with its sha256, so an agent can tell it received the run in full.
 */
import { createHash } from 'node:crypto';
import {
  encodeStepWorkload,
  EncodedStepWorkload,
  StepWorkload,
} from '../workload/engine/worker-workload';
import type { WriteScope } from '../workload/engine/write-handles';
import { withoutCredentials } from './control';
import { dropUndefined, messageOf } from '../common/values';
import type { Driver } from '../workload/engine/op-client';

export interface RunSpec {
  /** The deployment to load, userinfo and secret options removed (agents log in with their own). */
  targetUri: string;
  workload: EncodedStepWorkload;
  serverSelectionTimeoutMS: number;
  opTimeoutMS?: number;
  /** The client every agent's ops go through (--driver); absent: node (specs published before it). */
  driver?: Driver;
  /** An agent (or the coordinator) silent this long is taken as gone. */
  lostAfterMs: number;
  label: string;
}

/** What the coordinator knows: the uri with its credentials and the workload as compiled. */
export type RunSpecInput = Omit<RunSpec, 'targetUri' | 'workload'> & {
  uri: string;
  workload: StepWorkload;
};

export function buildRunSpec(input: RunSpecInput): RunSpec {
  return {
    targetUri: withoutCredentials(input.uri),
    workload: encodeStepWorkload(input.workload),
    serverSelectionTimeoutMS: input.serverSelectionTimeoutMS,
    ...dropUndefined({ opTimeoutMS: input.opTimeoutMS, driver: input.driver }),
    lostAfterMs: input.lostAfterMs,
    label: input.label,
  };
}

export function serializeSpec(spec: RunSpec): { spec: string; specSha256: string } {
  const text = JSON.stringify(spec);
  return { spec: text, specSha256: sha256(text) };
}

/** The spec, or why it cannot be trusted (truncated, altered, not a spec). */
export function parseSpec(
  text: unknown,
  specSha256: unknown,
): { spec: RunSpec } | { error: string } {
  if (typeof text !== 'string' || typeof specSha256 !== 'string')
    return { error: 'the run document has no spec' };
  if (sha256(text) !== specSha256)
    return { error: 'the run spec does not match its sha256 (incomplete or altered): not run' };
  try {
    const spec = JSON.parse(text) as RunSpec;
    if (typeof spec.targetUri !== 'string' || typeof spec.workload?.opsEjson !== 'string')
      return { error: 'the run spec lacks the target or the workload' };
    if (!isWriteScope(spec.workload.writes))
      return { error: "the run spec lacks what the workload may write (the run's write plan)" };
    return { spec };
  } catch (err) {
    return { error: `the run spec is not JSON: ${messageOf(err)}` };
  }
}

/** A WriteScope as the coordinator wrote it (lib/workload/engine/write-handles.ts). */
function isWriteScope(value: unknown): boolean {
  const scope = value as WriteScope | undefined;
  switch (scope?.kind) {
    case 'ours':
      return true;
    case 'planned':
      return (
        Array.isArray(scope.namespaces) && scope.namespaces.every((n) => typeof n === 'string')
      );
    case 'unplanned':
      return typeof scope.caller === 'string';
    default:
      return false;
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
