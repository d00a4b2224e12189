/**
 * A password inside a URI typed on the command line is as visible in `ps` as --password's: such a flag
 * gets the same warning, naming the environment variable the command reads the URI (or the password)
 * from instead.
 */
import type { Command } from 'commander';
import { STORE_ENV } from '../store/store';
import { PASSWORD_ENV } from '../security/connection';
import { uriCredentials, URI_ENV } from '../security/uri-credentials';

/** The environment variable each command reads a URI flag's value from, where it has one. */
function envFor(commandName: string, flag: string): string | undefined {
  if (flag === '--store') return STORE_ENV;
  if (flag === '--uri' && commandName === 'run') return URI_ENV;
  return undefined;
}

/**
 * Warns (through `warn`) for every option typed on the command line whose value is a URI holding a
 * password; the password itself is never printed.
 */
export function uriPasswordWarnings(command: Command, warn: (text: string) => void): void {
  for (const option of command.options) {
    const key = option.attributeName();
    if (command.getOptionValueSource(key) !== 'cli') continue;
    const value: unknown = command.getOptionValue(key);
    if (typeof value !== 'string' || !uriCredentials(value).password) continue;
    const flag = option.long ?? option.flags;
    const env = envFor(command.name(), flag);
    // The connection flags (--password, env MONGO_BENCH_PASSWORD) apply to the target, not to a store or control URI.
    const takesPassword = flag === '--uri' && command.options.some((o) => o.long === '--password');
    const instead = env
      ? `; set env ${env} to the URI instead`
      : takesPassword
        ? `; leave the password out of the URI and set env ${PASSWORD_ENV}`
        : '';
    warn(
      `option ${flag}: a password in the URI is visible to every user of this machine (ps)${instead}`,
    );
  }
}
