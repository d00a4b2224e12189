/**
 * MongoDB's naming rules for databases and collections, as the server applies them (each rule cites where),
 * and mongo-bench's refusal to write system namespaces on a deployment it did not start. Pure: the write plan
 * checks every namespace it lists with these before anything connects.
 *
 * Lengths are UTF-8 bytes: the server measures names as the bytes of their BSON strings (StringData::size()),
 * and BSON strings are UTF-8 (bsonspec.org, "string").
 */

/**
 * The longest database name, in bytes: DatabaseName::kMaxDatabaseNameLength = 63, validDBName refusing
 * `size() > 63` (src/mongo/db/database_name.h, DatabaseName::validDBName); earlier releases refuse
 * `size() >= 64`, the same 63 (src/mongo/db/namespace_string.h, NamespaceString::validDBName). Manual,
 * "MongoDB Limits and Thresholds", "Length of Database Names": fewer than 64 characters.
 */
export const MAX_DATABASE_NAME_BYTES = 63;

/**
 * The longest `db.coll` of a collection or view in a user database, in bytes, from featureCompatibilityVersion
 * 4.4 through 8.0: NamespaceString::MaxUserNsCollectionLen = 255 (MaxNsCollectionLen in 4.4), checked by
 * userAllowedCreateNS (src/mongo/db/ops/insert.cpp; src/mongo/db/query/write_ops/insert.cpp in later
 * releases). Manual, "MongoDB Limits and Thresholds", "Namespace Length". (FCV 4.2 allowed 120:
 * MaxNSCollectionLenFCV42; no 4.4-or-later deployment runs with it once upgraded.)
 */
export const MAX_NAMESPACE_BYTES = 255;

/**
 * The longest `db.coll` of a sharded collection: 255 less the length of the shard-local
 * `config.cache.chunks.` prefix (NamespaceString::MaxUserNsShardedCollectionLen = 235, namespace_string.h;
 * Manual, "Namespace Length": 235 bytes for sharded collections from FCV 4.4).
 */
export const MAX_SHARDED_NAMESPACE_BYTES = 235;

/**
 * The longest `db.coll` in admin, local or config: userAllowedCreateNS allows these internal databases
 * NamespaceString::MaxInternalNsCollectionLen = 511 (insert.cpp, userAllowedCreateNS). mongo-bench never writes
 * them (systemNamespaceProblem); the larger limit only keeps the server's own long names (config.cache.chunks.*)
 * from reading as invalid.
 */
export const MAX_INTERNAL_NAMESPACE_BYTES = 511;

/**
 * The system databases: NamespaceString::isOnInternalDb() is isAdminDB() || isLocalDB() || isConfigDB()
 * (namespace_string.h), each an exact, case-sensitive comparison of the name.
 */
export const SYSTEM_DATABASES: readonly string[] = ['admin', 'local', 'config'];

/**
 * Characters no database name may hold on any platform: validDBName refuses NUL, '/', '\\', '.', ' ', '"'
 * (database_name.h, DatabaseName::validDBName); '$' it refuses when creating or writing a namespace
 * (userAllowedCreateNS passes DollarInDbNameBehavior::Disallow). Manual, "Restrictions on Database Names for
 * Unix and Linux Systems": /\. "$ and the null character. A '$' is refused here for reads too: the only such
 * database is the server's own `$external`, which no workload names.
 */
const DATABASE_NAME_FORBIDDEN = '/\\. "$';

/**
 * Characters validDBName refuses only in a Windows build (`#ifdef _WIN32`: "all FAT32-disallowed characters").
 * mongo-bench refuses them on every platform: the plan is made before anything connects, so before the
 * server's platform is known, and a name that only some servers accept is a name a run cannot count on.
 */
const WINDOWS_DATABASE_NAME_FORBIDDEN = '*<>:|?';

const DATABASE_NAME_RULE = `MongoDB's database names cannot hold ${DATABASE_NAME_FORBIDDEN}`;
const COLLECTION_NAME_RULE = "MongoDB's collection names cannot hold $ or NUL, or start with '.'";

/** Bytes of the name in UTF-8, as the server measures it. */
export function utf8Bytes(name: string): number {
  return Buffer.byteLength(name, 'utf8');
}

export interface NamespaceOptions {
  /** The collection is (or will be) sharded: the shorter namespace limit applies. */
  sharded?: boolean;
}

/**
 * Why `db` (a whole database) or `db.coll` is not a valid MongoDB namespace; undefined when it is. Checks the
 * database name, then the collection name, then the length of `db.coll`.
 */
export function namespaceProblem(
  db: string,
  coll?: string,
  options: NamespaceOptions = {},
): string | undefined {
  const dbProblem = databaseNameProblem(db);
  if (dbProblem !== undefined || coll === undefined) return dbProblem;
  return collectionNameProblem(coll) ?? namespaceLengthProblem(db, coll, options);
}

/** Why `db` is not a valid database name; undefined when it is. */
export function databaseNameProblem(db: string): string | undefined {
  const quoted = JSON.stringify(db);
  if (db.length === 0) return 'database name is empty (MongoDB needs a name)';
  const encoding = unencodableProblem(db);
  if (encoding) return `database name ${quoted} ${encoding}`;
  for (const character of db) {
    if (character === '\0')
      return `database name ${quoted} has a NUL character (${DATABASE_NAME_RULE} or NUL)`;
    if (DATABASE_NAME_FORBIDDEN.includes(character))
      return `database name ${quoted} has ${characterName(character)} (${DATABASE_NAME_RULE})`;
    if (WINDOWS_DATABASE_NAME_FORBIDDEN.includes(character))
      return (
        `database name ${quoted} has ${characterName(character)} (MongoDB on Windows refuses ` +
        `${WINDOWS_DATABASE_NAME_FORBIDDEN} in database names; mongo-bench refuses them on every platform, ` +
        "since a plan is made before it knows the server's)"
      );
  }
  const bytes = utf8Bytes(db);
  if (bytes > MAX_DATABASE_NAME_BYTES)
    return `database name ${quoted} is ${bytes} bytes in UTF-8: MongoDB allows at most ${MAX_DATABASE_NAME_BYTES}`;
  return undefined;
}

/**
 * Why `coll` is not a valid collection name; undefined when it is. The rules of
 * NamespaceString::validCollectionName (src/mongo/db/namespace_string.h): not empty, not starting with '.',
 * no '$' and no NUL. Manual, "Restriction on Collection Names".
 */
export function collectionNameProblem(coll: string): string | undefined {
  const quoted = JSON.stringify(coll);
  if (coll.length === 0) return 'collection name is empty (MongoDB needs a name)';
  const encoding = unencodableProblem(coll);
  if (encoding) return `collection name ${quoted} ${encoding}`;
  if (coll.startsWith('.'))
    return `collection name ${quoted} starts with '.' (${COLLECTION_NAME_RULE})`;
  if (coll.includes('\0'))
    return `collection name ${quoted} has a NUL character (${COLLECTION_NAME_RULE})`;
  if (coll.includes('$')) return `collection name ${quoted} has a '$' (${COLLECTION_NAME_RULE})`;
  return undefined;
}

/**
 * Why `db.coll` is too long; undefined when it fits. The server applies the limit to "normal" collections
 * only: NamespaceString::isNormalCollection() excludes `system.*` and local's `replset.*`
 * (namespace_string.h), and userAllowedCreateNS checks `ns.isNormalCollection() && ns.size() > maxNsLen`.
 */
function namespaceLengthProblem(
  db: string,
  coll: string,
  options: NamespaceOptions,
): string | undefined {
  const normal = !coll.startsWith('system.') && !(db === 'local' && coll.startsWith('replset.'));
  if (!normal) return undefined;
  const internal = SYSTEM_DATABASES.includes(db);
  const limit = internal
    ? MAX_INTERNAL_NAMESPACE_BYTES
    : options.sharded
      ? MAX_SHARDED_NAMESPACE_BYTES
      : MAX_NAMESPACE_BYTES;
  const bytes = utf8Bytes(db) + 1 + utf8Bytes(coll);
  if (bytes <= limit) return undefined;
  const kind = internal ? ` in ${db}` : options.sharded ? ' for a sharded collection' : '';
  return `namespace ${JSON.stringify(`${db}.${coll}`)} is ${bytes} bytes in UTF-8: MongoDB allows at most ${limit}${kind} (database, '.' and collection together)`;
}

/**
 * Why the namespace may not be a write target on a deployment mongo-bench did not start; undefined when it
 * may. Reading these namespaces is fine: callers ask only for what the run writes.
 * - admin, local and config hold the deployment's users, replication and sharding state;
 * - a name that differs from one of them only in case: the server keeps database names case-sensitive
 *   (isAdminDB() compares exactly, so `Admin` is not the admin database) but refuses to create a database
 *   whose name differs from an existing one only in case (DatabaseHolderImpl::openDb, DatabaseDifferCase,
 *   src/mongo/db/catalog/database_holder_impl.cpp; Manual, "Use of Case in Database Names"): a write to
 *   `Admin` fails, or creates a database that then blocks `admin`;
 * - `system.*` collections are the server's (NamespaceString::isSystem(): `coll().starts_with("system.")`);
 * - a collection name holding `.system.` the server refuses to create or write (userAllowedCreateNS).
 */
export function systemNamespaceProblem(db: string, coll?: string): string | undefined {
  if (SYSTEM_DATABASES.includes(db))
    return `${db} is a system database: mongo-bench never writes there on a deployment it did not start`;
  const systemDb = SYSTEM_DATABASES.find((name) => name === db.toLowerCase());
  if (systemDb)
    return (
      `database ${JSON.stringify(db)} differs from the system database ${systemDb} only in case: MongoDB ` +
      `refuses a database whose name differs from an existing one only in case, so a write there fails or ` +
      `creates a database that blocks ${systemDb}`
    );
  if (coll === undefined) return undefined;
  const namespace = JSON.stringify(`${db}.${coll}`);
  if (coll.startsWith('system.'))
    return `${namespace} is a system collection: mongo-bench never writes system.* collections on a deployment it did not start`;
  if (coll.includes('.system.'))
    return `${namespace} has '.system.' in its collection name: MongoDB refuses to create or write such a collection`;
  return undefined;
}

/** A character as a message names it: "a '.'", "a space". */
function characterName(character: string): string {
  return character === ' ' ? 'a space' : `a '${character}'`;
}

/**
 * A lone UTF-16 surrogate has no UTF-8 form: a driver would send U+FFFD in its place, so the server would get
 * another name than the one written.
 */
function unencodableProblem(name: string): string | undefined {
  const lone = /\p{Surrogate}/u.exec(name);
  if (!lone) return undefined;
  const code = lone[0].charCodeAt(0).toString(16).toUpperCase();
  return `has a lone UTF-16 surrogate (U+${code}), which has no UTF-8 form`;
}
