/**
 * The redaction sweeps' check: an output (a file, a stream, a log) holds none of the secrets. Each
 * sweep counts what it searched, so its closing line can say how many outputs were looked at.
 */
import { containsSecret } from '../../lib/security/redact';

export interface SecretSweep {
  /** What was searched, in order (for the count the sweep prints). */
  searched: string[];
  /** Fails the test, naming `what`, when `text` holds one of the secrets (the sweep's own unless given). */
  expectClean: (what: string, text: string, secrets?: string[]) => void;
}

export function secretSweep(secrets: string[]): SecretSweep {
  const searched: string[] = [];
  return {
    searched,
    expectClean(what, text, only = secrets) {
      searched.push(what);
      expect({ what, found: containsSecret(text, only) }).toEqual({ what, found: undefined });
    },
  };
}
