import type { ResultDocument } from '../result';
import { redactUri } from '../security/redact';

/**
 * The result as a store keeps it: the target URI redacted once more (results written by this tool
 * already are; an imported file from elsewhere may not be), and every connection string in the
 * configuration too. A store never holds a password.
 */
export function resultForStore(result: ResultDocument): ResultDocument {
  const text = JSON.stringify(result);
  const redacted = redactUri(text);
  return redacted === text ? result : (JSON.parse(redacted) as ResultDocument);
}
