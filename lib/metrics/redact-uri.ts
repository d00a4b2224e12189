/**
 * Deprecated: lib/security/redact.ts is the one redaction module. Kept as a re-export only while
 * lib/matrix/presplit-import.ts and lib/experiments/presplit-import/experiment.ts import it from
 * here; delete it once they import '../security/redact' (or '../../security/redact').
 */
export { redactUri } from '../security/redact';
