/**
 * The run's workload, parsed and compiled from its options: every op and template error surfaces here,
 * before any connection (the run plan calls it to check; the sweep to run what it returns).
 */
import { UsageError } from '../../config/errors';
import { prepareWorkload, PreparedWorkload } from '../../workload/engine/compile-ops';
import { parseOps } from '../../workload/language/op-spec';
import type { RunOptions } from './run-options';

/** Parses and compiles the workload: every op/template error surfaces here, before any connection. */
export function compileRunWorkload(
  options: Pick<RunOptions, 'workload' | 'ns' | 'writeConcern'>,
): PreparedWorkload {
  const where = options.workload.file ? `workload file ${options.workload.file}: ` : '';
  const specs = parseOps(options.workload.ops, { defaultNs: options.ns, where });
  try {
    return prepareWorkload(specs, { defaultWriteConcern: options.writeConcern });
  } catch (err) {
    if (err instanceof UsageError && where) throw new UsageError(`${where}${err.message}`);
    throw err;
  }
}
