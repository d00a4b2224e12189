/**
 * Whether a configuration can run on the target, and if not, why (pure). A configuration the target
 * cannot honour becomes a "skipped" row with this reason; it is never dropped.
 */
import { requiredAcks } from '../experiments/configuration';
import { Experiment, MatrixConfiguration, TargetCapabilities } from '../experiments/experiment';

export function skipReason(
  config: MatrixConfiguration,
  caps: TargetCapabilities,
  experiment?: Experiment,
): string | undefined {
  const { topology } = caps;
  const experimentReason = experiment?.skipReason?.(caps);
  if (experimentReason) return experimentReason;
  const acks = requiredAcks(config.writeConcern);
  if (acks > 1) {
    if (topology.kind === 'standalone')
      return `w:${acks} needs a replica set with at least ${acks} data-bearing members; the target is a standalone`;
    if (
      topology.kind === 'replicaSet' &&
      topology.dataMembers !== undefined &&
      topology.dataMembers < acks
    ) {
      return `w:${acks} needs ${acks} data-bearing members; replica set ${topology.setName} has ${topology.dataMembers}`;
    }
  }
  if (config.readPreference === 'secondary') {
    if (topology.kind === 'standalone')
      return 'readPreference secondary (the old slaveOk) needs a replica set; the target is a standalone with no secondaries';
    if (
      topology.kind === 'replicaSet' &&
      topology.dataMembers !== undefined &&
      topology.dataMembers < 2
    ) {
      return `readPreference secondary needs a secondary; replica set ${topology.setName} has ${topology.dataMembers} member`;
    }
  }
  if (config.capped && caps.capped && !caps.capped.supported)
    return caps.capped.reason ?? 'capped collections are not supported here';
  if (
    acks === 0 &&
    config.writeConcern?.w === 0 &&
    caps.unacknowledgedWrites &&
    !caps.unacknowledgedWrites.supported
  ) {
    return (
      caps.unacknowledgedWrites.reason ??
      'unacknowledged (w:0) writes are not applied by this server'
    );
  }
  return undefined;
}

/** Which probes the configurations need (each probe costs a round trip or two). */
export function neededProbes(configs: readonly MatrixConfiguration[]): {
  capped: boolean;
  unacknowledgedWrites: boolean;
} {
  return {
    capped: configs.some((c) => c.capped === true),
    unacknowledgedWrites: configs.some((c) => c.writeConcern?.w === 0),
  };
}
