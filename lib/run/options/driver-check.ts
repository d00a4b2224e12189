/**
 * What `--driver wire` cannot run, refused before anything connects (a usage error naming
 * `--driver node`): a URI the wire client refuses (lib/wire/settings.ts wireRefusal: SRV, load
 * balancers, proxies, authentication other than SCRAM, compression, a non-primary read preference),
 * an authentication mechanism other than SCRAM, an op with a read preference other than primary, and a
 * command that belongs to a transaction.
 * Also, for either driver, the retryWrites/retryReads a URI sets: recorded in the result's config and
 * told once as not applied (every op is a command, which neither client retries).
 */
import { UsageError } from '../../config/errors';
import { createClient } from '../../server/connect';
import { retriesInUri, wireRefusal } from '../../wire/settings';
import type { RunOptions } from './run-options';
import type { Driver } from '../../workload/engine/op-client';
import { OpSpec, parseOps } from '../../workload/language/op-spec';

/** Commands and fields that only mean something inside a transaction (lsid and txnNumber, which the wire client never sends). */
const TRANSACTION_COMMANDS = new Set(['commitTransaction', 'abortTransaction']);
const TRANSACTION_FIELDS = ['startTransaction', 'autocommit', 'txnNumber', 'lsid'];

const refused = (what: string) =>
  new UsageError(
    `option --driver wire: ${what} is not supported by the wire client; use --driver node`,
  );

/** --auth-mechanism (resolved with the connection options): only SCRAM with --driver wire. */
export function checkWireMechanism(
  driver: Driver | undefined,
  authMechanism: string | undefined,
): void {
  if (driver === 'wire' && authMechanism && !authMechanism.startsWith('SCRAM-'))
    throw refused(`--auth-mechanism ${authMechanism}`);
}

/**
 * Throws a UsageError when `--driver wire` cannot run these ops (the workload's, and each scenario's)
 * against `uri` (undefined: launched here).
 */
export function checkWireDriver(
  benchmark: Pick<RunOptions, 'driver' | 'scenarios'>,
  ops: readonly OpSpec[],
  uri: string | undefined,
): void {
  if (benchmark.driver !== 'wire') return;
  checkOps(ops, '');
  for (const [i, s] of (benchmark.scenarios ?? []).entries())
    checkOps(parseOps(s.workload.ops, { defaultNs: s.ns }), `scenarios[${i}].`);
  if (uri === undefined) return;
  const { client } = createClient(uri, { serverSelectionTimeoutMS: 1000, maxClients: 1 });
  const refusal = wireRefusal(client.options);
  if (refusal) throw refusal;
}

function checkOps(ops: readonly OpSpec[], where: string): void {
  for (const spec of ops) {
    const at = `${where}ops[${spec.index}]`;
    const mode = spec.readPreference?.mode;
    if (mode && mode !== 'primary') throw refused(`${at}.readPreference ${mode}`);
    const command = spec.command as Record<string, unknown> | undefined;
    if (command) {
      const name = Object.keys(command)[0];
      const field = TRANSACTION_FIELDS.find((f) => f in command);
      if (TRANSACTION_COMMANDS.has(name) || field)
        throw refused(`a transaction (${at}.command ${field ?? name})`);
    }
  }
}

/**
 * retryWrites/retryReads as the URI sets them, for the result's config, and the note told once: neither
 * client applies them (each op is sent as a command, which the driver never retries either).
 */
export function uriRetries(uri: string | undefined): {
  retries?: { retryWrites?: boolean; retryReads?: boolean };
  note?: string;
} {
  if (uri === undefined) return {};
  const retries = retriesInUri(uri);
  const keys = Object.keys(retries);
  if (keys.length === 0) return {};
  return {
    retries,
    note: `${keys.join(' and ')} in the URI ${keys.length === 1 ? 'is' : 'are'} recorded in the result's config and not applied: every op is sent as a command, which neither client (--driver node or wire) retries`,
  };
}
