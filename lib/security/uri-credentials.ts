/**
 * Credentials written inside a connection string (`mongodb://user:pw@host/`): the user counts as given
 * (an --auth-mechanism that needs one is satisfied); a password there is warned about (./uri-warnings).
 */
/** Where `run` reads its target URI from when neither --uri nor a config file's `uri` gives one. */
export const URI_ENV = 'MONGO_BENCH_URI';

/** The user named in a mongodb:// or mongodb+srv:// URI, and whether it carries a password. */
export function uriCredentials(uri: string | undefined): { username?: string; password: boolean } {
  const userinfo =
    uri === undefined ? undefined : /^mongodb(?:\+srv)?:\/\/([^@/]*)@/i.exec(uri)?.[1];
  if (userinfo === undefined) return { password: false };
  const colon = userinfo.indexOf(':');
  const user = colon < 0 ? userinfo : userinfo.slice(0, colon);
  let username: string | undefined;
  try {
    username = decodeURIComponent(user) || undefined;
  } catch {
    username = user || undefined;
  }
  return { ...(username !== undefined ? { username } : {}), password: colon >= 0 };
}
