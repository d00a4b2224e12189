// Credentials and TLS for every connecting command, and the one redaction module for all outputs.
export { MASK, redactUri, redactText, redactCommand, secretForms, containsSecret } from './redact';
export {
  addConnectionOptions,
  resolveConnectionOptions,
  toMongoClientOptions,
  connectionSecrets,
  describeConnection,
  AUTH_MECHANISMS,
  PASSWORD_ENV,
  USER_ENV,
  type ConnectionFlags,
  type ConnectionOptions,
  type ResolvedConnection,
} from './connection';
