/**
 * The connection options every connecting command shares: credentials and TLS. They go to the
 * driver as MongoClientOptions (`auth`, `authSource`, `tls...`), never into the URI string, so
 * the URI we log or store never carries a password.
 */
import * as fs from 'node:fs';
import { Command } from 'commander';
import type { AuthMechanism, MongoClientOptions } from 'mongodb';
import { z } from 'zod';
import { UsageError } from '../config/errors';
import { kebab, oneOfError, parseOptions, PathStyle } from '../config/validate';
import { dropUndefined } from '../common/values';
import { addOptions, option, tableShape } from '../config/option-table';
import { uriCredentials } from './uri-credentials';

/** Where a password may come from besides --password (which `ps` shows to everyone on the machine). */
export const PASSWORD_ENV = 'MONGO_BENCH_PASSWORD';
export const USER_ENV = 'MONGO_BENCH_USER';

export const AUTH_MECHANISMS = [
  'SCRAM-SHA-256',
  'SCRAM-SHA-1',
  'MONGODB-X509',
  'PLAIN',
  'GSSAPI',
  'MONGODB-AWS',
  'MONGODB-OIDC',
] as const;

export interface ConnectionOptions {
  username?: string;
  password?: string;
  /** Where the password came from: a flag (visible in `ps`) or the environment. */
  passwordFrom?: 'flag' | 'env';
  authSource?: string;
  authMechanism?: (typeof AUTH_MECHANISMS)[number];
  tls: boolean;
  tlsCAFile?: string;
  tlsCertificateKeyFile?: string;
  tlsAllowInvalidCertificates: boolean;
}

export interface ResolvedConnection {
  options: ConnectionOptions;
  warnings: string[];
}

const nonEmpty = z.string().min(1, 'must not be empty');
const mechanismError = oneOfError(AUTH_MECHANISMS);

/**
 * The connection options, one row each: flag, help, schema (the flags and a config file's
 * `connection` section), command-line parser. Every connecting command adds them all.
 */
export const CONNECTION_OPTIONS = {
  username: option({
    flag: '--username <name>',
    help: `user to authenticate as (or env ${USER_ENV})`,
    schema: nonEmpty,
  }),
  password: option({
    flag: '--password <password>',
    help: `password; prefer env ${PASSWORD_ENV}: a password on the command line is visible in ps`,
    schema: z.string(),
  }),
  authSource: option({
    flag: '--auth-source <db>',
    help: "database that holds the user (default: admin, or the URI's)",
    schema: nonEmpty.regex(/^[^/\\. "$*<>:|?]+$/, 'must be a database name'),
  }),
  authMechanism: option({
    flag: '--auth-mechanism <name>',
    help: `${AUTH_MECHANISMS.join(' | ')} (default: negotiated with the server)`,
    // Any text comes in (ConnectionFlags); the enum names the choices.
    schema: z
      .string({ error: mechanismError })
      .pipe(z.enum(AUTH_MECHANISMS, { error: mechanismError })),
  }),
  tls: option({ flag: '--tls', help: 'connect with TLS', schema: z.boolean() }),
  tlsCaFile: option({
    flag: '--tls-ca-file <file>',
    help: 'PEM file of the certificate authorities to trust (implies --tls)',
    schema: nonEmpty,
  }),
  tlsCertificateKeyFile: option({
    flag: '--tls-certificate-key-file <file>',
    help: 'PEM file with the client certificate and key (implies --tls)',
    schema: nonEmpty,
  }),
  tlsAllowInvalidCertificates: option({
    flag: '--tls-allow-invalid-certificates',
    help: 'accept a server certificate that does not validate (testing only)',
    schema: z.boolean(),
  }),
};

const schema = z.object(tableShape(CONNECTION_OPTIONS)).strict();

/** As commander hands them over (camelCase of the flags; any text for --auth-mechanism). */
export type ConnectionFlags = z.input<typeof schema>;

export function addConnectionOptions(command: Command): Command {
  return addOptions(command, CONNECTION_OPTIONS);
}

/** The flags addConnectionOptions adds, as commander names them. */
export const CONNECTION_KEYS = Object.keys(CONNECTION_OPTIONS) as (keyof ConnectionFlags)[];

/** A command's flags split into the connection flags and the rest. */
export function splitConnectionFlags<T extends object>(
  flags: T,
): { connection: ConnectionFlags; rest: Omit<T, keyof ConnectionFlags> } {
  const connection: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flags))
    ((CONNECTION_KEYS as string[]).includes(key) ? connection : rest)[key] = value;
  return {
    connection: connection as ConnectionFlags,
    rest: rest as Omit<T, keyof ConnectionFlags>,
  };
}

/**
 * Validates the flags (or the `connection` section of a config file, with style 'config') and
 * settles the password: the flag, else env MONGO_BENCH_PASSWORD; the username: the flag, else
 * env MONGO_BENCH_USER. Errors name the flag; the password never appears in one.
 */
export function resolveConnectionOptions(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv = process.env,
  style: PathStyle = 'flag',
  /** The target's URI, whose own user (mongodb://user@host/) counts as given. */
  uri?: string,
): ResolvedConnection {
  const input = parseOptions(schema, dropUndefined(flags), style);
  const name = (key: keyof ConnectionFlags) =>
    style === 'flag' ? `option --${kebab(key)}` : `config connection.${key}`;
  const warnings: string[] = [];

  const fromUri = uriCredentials(uri);
  let username = input.username ?? (env[USER_ENV] || undefined);
  let password = input.password;
  let passwordFrom: ConnectionOptions['passwordFrom'];
  if (password !== undefined) {
    passwordFrom = 'flag';
    if (style === 'flag')
      warnings.push(
        `${name('password')}: a password on the command line is visible to every user of this machine (ps); set ${PASSWORD_ENV} instead`,
      );
  } else if (env[PASSWORD_ENV]) {
    password = env[PASSWORD_ENV];
    passwordFrom = 'env';
  }
  if (password === '') throw new UsageError(`${name('password')}: must not be empty`);

  const mechanism = input.authMechanism;
  // A user name exported for the setup scripts alone, with no password: no authentication asked for.
  if (input.username === undefined && password === undefined && mechanism === undefined)
    username = undefined;
  // The URI's own user stands for --username; with a password given apart, the driver needs both in its options.
  if (username === undefined && password !== undefined && !fromUri.password)
    username = fromUri.username;
  if (mechanism === 'MONGODB-X509') {
    if (passwordFrom === 'flag')
      throw new UsageError(
        `${name('password')}: MONGODB-X509 authenticates with the client certificate, not a password`,
      );
    if (passwordFrom === 'env') password = undefined; // a stray env var must not be sent
    if (!input.tlsCertificateKeyFile)
      throw new UsageError(
        `${name('authMechanism')}: MONGODB-X509 needs --tls-certificate-key-file`,
      );
  } else if (
    mechanism === 'MONGODB-AWS' ||
    mechanism === 'MONGODB-OIDC' ||
    mechanism === 'GSSAPI'
  ) {
    // These can take their credentials from the environment; a user name alone is allowed.
  } else if (password !== undefined && username === undefined) {
    throw new UsageError(`${name('password')}: needs --username (or env ${USER_ENV})`);
  } else if (mechanism !== undefined && username === undefined && fromUri.username === undefined) {
    throw new UsageError(
      `${name('authMechanism')}: ${mechanism} needs --username (or env ${USER_ENV})`,
    );
  } else if (username !== undefined && password === undefined && input.username !== undefined) {
    throw new UsageError(
      `${name('username')}: no password: set env ${PASSWORD_ENV} (or, visible in ps, --password)`,
    );
  }

  for (const key of ['tlsCaFile', 'tlsCertificateKeyFile'] as const) {
    const file = input[key];
    if (file !== undefined) checkReadableFile(file, name(key));
  }
  if (
    input.tls === false &&
    (input.tlsCaFile || input.tlsCertificateKeyFile || input.tlsAllowInvalidCertificates)
  ) {
    throw new UsageError(
      `${name('tls')}: is off, but TLS files or --tls-allow-invalid-certificates are given`,
    );
  }
  const tls =
    input.tls ??
    Boolean(input.tlsCaFile || input.tlsCertificateKeyFile || input.tlsAllowInvalidCertificates);
  if (input.tlsAllowInvalidCertificates) {
    warnings.push(
      `${name('tlsAllowInvalidCertificates')}: the server's certificate is not checked; anyone in the middle can read the credentials`,
    );
  }
  if (
    input.authSource !== undefined &&
    username === undefined &&
    fromUri.username === undefined &&
    mechanism === undefined
  ) {
    throw new UsageError(`${name('authSource')}: needs --username (or env ${USER_ENV})`);
  }

  const options: ConnectionOptions = {
    ...dropUndefined({ username }),
    ...(password !== undefined ? { password, passwordFrom } : {}),
    ...dropUndefined({ authSource: input.authSource }),
    ...dropUndefined({ authMechanism: mechanism }),
    tls,
    ...dropUndefined({ tlsCAFile: input.tlsCaFile }),
    ...dropUndefined({ tlsCertificateKeyFile: input.tlsCertificateKeyFile }),
    tlsAllowInvalidCertificates: input.tlsAllowInvalidCertificates ?? false,
  };
  return { options, warnings };
}

/** The driver's options for these settings; merge them into every MongoClient this run opens. */
export function toMongoClientOptions(o: ConnectionOptions): MongoClientOptions {
  const out: MongoClientOptions = {};
  if (o.username !== undefined || o.password !== undefined) {
    out.auth = {
      ...dropUndefined({ username: o.username }),
      ...dropUndefined({ password: o.password }),
    };
  }
  if (o.authSource !== undefined) out.authSource = o.authSource;
  if (o.authMechanism !== undefined) out.authMechanism = o.authMechanism as AuthMechanism;
  if (o.tls) out.tls = true;
  if (o.tlsCAFile !== undefined) out.tlsCAFile = o.tlsCAFile;
  if (o.tlsCertificateKeyFile !== undefined) out.tlsCertificateKeyFile = o.tlsCertificateKeyFile;
  if (o.tlsAllowInvalidCertificates) out.tlsAllowInvalidCertificates = true;
  return out;
}

/** The values to scrub from every output of a run (see redactText). */
export function connectionSecrets(o: Pick<ConnectionOptions, 'password'>): string[] {
  return o.password ? [o.password] : [];
}

/**
 * A description for logs and results: who, how, TLS or not; never the password.
 * e.g. "user alice (authSource admin, SCRAM-SHA-256), TLS".
 */
export function describeConnection(o: ConnectionOptions): string {
  const parts: string[] = [];
  if (o.username !== undefined || o.authMechanism !== undefined) {
    const details = [
      o.authSource ? `authSource ${o.authSource}` : undefined,
      o.authMechanism,
    ].filter(Boolean);
    parts.push(
      `user ${o.username ?? '(from the environment)'}${details.length > 0 ? ` (${details.join(', ')})` : ''}`,
    );
  } else {
    parts.push('no authentication');
  }
  parts.push(
    o.tls ? `TLS${o.tlsAllowInvalidCertificates ? ' (certificate not checked)' : ''}` : 'no TLS',
  );
  return parts.join(', ');
}

function checkReadableFile(file: string, name: string): void {
  try {
    if (!fs.statSync(file).isFile()) throw new UsageError(`${name}: ${file} is not a file`);
    fs.accessSync(file, fs.constants.R_OK);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `${name}: cannot read ${file} (${code === 'ENOENT' ? 'no such file' : (code ?? String(err))})`,
    );
  }
}
