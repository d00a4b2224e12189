/** Removes credentials from a MongoDB connection string before it goes into a result or a message. */

const SECRET_PARAMS = /^(password|.*password|.*secret.*|.*token.*|authMechanismProperties)$/i;

export function redactUri(uri: string): string {
  let out = uri.replace(/^(mongodb(?:\+srv)?:\/\/)([^@/?#]*)@/i, (_m, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return colon < 0 ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, colon)}:****@`;
  });
  const q = out.indexOf('?');
  if (q >= 0) {
    const params = out
      .slice(q + 1)
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        const key = eq < 0 ? pair : pair.slice(0, eq);
        return eq >= 0 && SECRET_PARAMS.test(decodeURIComponent(key)) ? `${key}=****` : pair;
      });
    out = `${out.slice(0, q)}?${params.join('&')}`;
  }
  return out;
}
