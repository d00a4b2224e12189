/**
 * The one place that removes credentials from what mongo-bench writes or prints: connection
 * strings (alone or inside longer text), known secret values (passwords given by flag or
 * environment, keyfile contents) and command documents (createUser's pwd, SASL payloads).
 */

export const MASK = '****';

const URI_IN_TEXT = /mongodb(?:\+srv)?:\/\/[^\s"'`<>]+/gi;
/** What a host list may contain: names, IPv4/IPv6 literals, ports, commas, percent-escapes (unix sockets). */
const HOST_LIST = /^[A-Za-z0-9.\-_:[\],%~]*$/;
/** Query-string options whose value is secret. */
const SECRET_PARAM =
  /^(?:.*password|.*secret.*|.*token.*|authMechanismProperties|.*credential.*)$/i;

/** `mongodb://user:pass@h1,h2/db?tlsCertificateKeyFilePassword=x` -> `mongodb://user:****@h1,h2/db?tlsCertificateKeyFilePassword=****`. */
export function redactUri(uri: string): string {
  return uri.replace(URI_IN_TEXT, redactOneUri);
}

function redactOneUri(uri: string): string {
  const schemeEnd = uri.indexOf('://') + 3;
  const scheme = uri.slice(0, schemeEnd);
  let rest = uri.slice(schemeEnd);
  // The userinfo ends at the last '@' that is followed by a plain host list: an unescaped '@',
  // '/' or '?' inside a password then still counts as part of the password (redacted, not shown).
  let at = -1;
  for (let i = rest.lastIndexOf('@'); i >= 0; i = rest.lastIndexOf('@', i - 1)) {
    const after = rest.slice(i + 1);
    const hostsEnd = after.search(/[/?#]/);
    const hosts = hostsEnd < 0 ? after : after.slice(0, hostsEnd);
    if (HOST_LIST.test(hosts)) {
      at = i;
      break;
    }
    if (i === 0) break;
  }
  let userinfo = '';
  if (at >= 0) {
    const raw = rest.slice(0, at);
    const colon = raw.indexOf(':');
    userinfo = `${colon < 0 ? raw : `${raw.slice(0, colon)}:${MASK}`}@`;
    rest = rest.slice(at + 1);
  }
  const q = rest.indexOf('?');
  if (q >= 0) rest = `${rest.slice(0, q)}?${redactQuery(rest.slice(q + 1))}`;
  return `${scheme}${userinfo}${rest}`;
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const key = pair.slice(0, eq);
      return SECRET_PARAM.test(safeDecode(key)) ? `${key}=${MASK}` : pair;
    })
    .join('&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The forms a secret can take in text we write: as is, percent-encoded (in a URI), JSON-escaped,
 * and each line of a multi-line secret (a keyfile is base64 over several lines; mongod ignores the
 * line breaks, so every line is key material).
 */
export function secretForms(secret: string): string[] {
  if (secret === '') return [];
  const forms = new Set<string>([
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    encodeURI(secret),
  ]);
  forms.add(JSON.stringify(secret).slice(1, -1));
  // encodeURIComponent leaves !'()* alone; strict encoders escape them too.
  forms.add(
    encodeURIComponent(secret).replace(
      /[!'()*]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    ),
  );
  if (/[\r\n]/.test(secret)) {
    for (const line of secret.split(/\r?\n/)) if (line.trim() !== '') forms.add(line.trim());
  }
  return [...forms].filter((f) => f !== '').sort((a, b) => b.length - a.length);
}

/**
 * Removes every URI credential and every occurrence of the given secret values (in any of their
 * forms, see secretForms) from `text`. Empty secrets are ignored.
 */
export function redactText(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = redactUri(text);
  const forms = [...new Set(secrets.flatMap((s) => (s ? secretForms(s) : [])))].sort(
    (a, b) => b.length - a.length,
  );
  for (const form of forms) out = out.split(form).join(MASK);
  return out;
}

/** Command fields whose value is a credential, whatever the command. */
const SECRET_FIELD =
  /^(?:pwd|password|payload|speculativeAuthenticate|authMechanismProperties|.*password|.*secret.*|.*token.*|.*credential.*)$/i;
/** Commands whose every argument is credential material (legacy `authenticate` carries a key and nonce). */
const SECRET_COMMANDS = new Set(['authenticate', 'copydbgetnonce']);

/**
 * A copy of a command document with credentials replaced by "****": createUser/updateUser `pwd`,
 * SASL payloads, speculative authentication, password-like fields, connection strings anywhere
 * in the values, and any value containing a known secret. BSON values other than plain objects
 * and arrays are kept as they are (unless under a secret field).
 */
export function redactCommand<T>(doc: T, secrets: readonly (string | undefined)[] = []): T {
  const commandName = isPlainObject(doc) ? Object.keys(doc)[0]?.toLowerCase() : undefined;
  const wholeCommand = commandName !== undefined && SECRET_COMMANDS.has(commandName);
  const visit = (value: unknown, key: string | undefined, depth: number): unknown => {
    if (
      key !== undefined &&
      (SECRET_FIELD.test(key) || (wholeCommand && depth === 1 && key.toLowerCase() !== commandName))
    ) {
      return value === undefined || value === null || typeof value === 'boolean' ? value : MASK;
    }
    if (typeof value === 'string') return redactText(value, secrets);
    if (Array.isArray(value)) return value.map((v) => visit(v, undefined, depth + 1));
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = visit(v, k, depth + 1);
      return out;
    }
    return value;
  };
  return visit(doc, undefined, 0) as T;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** True when `text` holds any form of any of the secrets: for tests and for last-line-of-defence checks. */
export function containsSecret(
  text: string,
  secrets: readonly (string | undefined)[],
): string | undefined {
  for (const s of secrets) {
    if (!s) continue;
    const form = secretForms(s).find((f) => text.includes(f));
    if (form !== undefined) return form;
  }
  return undefined;
}
