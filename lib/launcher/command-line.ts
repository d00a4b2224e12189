/**
 * A process command line as a person would paste it into a shell, with secrets removed so it can
 * go into command-log.txt.
 */
import { redactUri } from '../security/redact';

/** Options whose value is a secret (passwords, tokens); their value is replaced by "<redacted>". */
const SECRET_OPTION = /pass(word)?|secret|token|credential/i;
export const REDACTED = '<redacted>';

/**
 * mongodb://user:pass@host -> mongodb://<redacted>@host, anywhere in an argument. The shared
 * redactor goes first: it finds the userinfo even when a password holds a raw '/', '?' or '@',
 * and masks secret query options (tlsCertificateKeyFilePassword, authMechanismProperties).
 */
function withoutUriCredentials(arg: string): string {
  return redactUri(arg).replace(/(mongodb(?:\+srv)?:\/\/)[^@/\s]+@/gi, `$1${REDACTED}@`);
}

/** `--setParameter name=value` where name looks secret. */
function redactSetParameter(value: string): string {
  const eq = value.indexOf('=');
  return eq > 0 && SECRET_OPTION.test(value.slice(0, eq))
    ? `${value.slice(0, eq + 1)}${REDACTED}`
    : value;
}

export function redactArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      const name = arg.slice(0, eq);
      const value = arg.slice(eq + 1);
      if (SECRET_OPTION.test(name)) out.push(`${name}=${REDACTED}`);
      else if (name === '--setParameter') out.push(`${name}=${redactSetParameter(value)}`);
      else out.push(withoutUriCredentials(arg));
      continue;
    }
    out.push(withoutUriCredentials(arg));
    const next = args[i + 1];
    if (arg.startsWith('--') && next !== undefined && !next.startsWith('--')) {
      if (SECRET_OPTION.test(arg)) out.push(REDACTED);
      else if (arg === '--setParameter') out.push(redactSetParameter(next));
      else out.push(withoutUriCredentials(next));
      i++;
    }
  }
  return out;
}

/** POSIX shell quoting: bare when safe, else single quotes. */
export function shellQuote(word: string): string {
  if (word === REDACTED || /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function formatCommandLine(binary: string, args: readonly string[]): string {
  return [binary, ...redactArgs(args)].map(shellQuote).join(' ');
}
