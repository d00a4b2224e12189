/**
 * MongoDB's naming rules (lib/server/namespace-rules.ts) on both sides of every limit, each forbidden
 * character, names measured in UTF-8 bytes, and the system namespaces mongo-bench never writes on a
 * deployment it did not start, with database names compared as the server compares them.
 */
import {
  collectionNameProblem,
  databaseNameProblem,
  MAX_DATABASE_NAME_BYTES,
  MAX_INTERNAL_NAMESPACE_BYTES,
  MAX_NAMESPACE_BYTES,
  MAX_SHARDED_NAMESPACE_BYTES,
  namespaceProblem,
  systemNamespaceProblem,
  utf8Bytes,
} from '../../lib/server/namespace-rules';

describe('database names', () => {
  it('accepts ordinary names, dashes, underscores, digits and non-ASCII letters', () => {
    for (const db of ['shop', 'my-db', 'db_1', '2024', 'données', 'Admin2'])
      expect(namespaceProblem(db)).toBeUndefined();
  });

  it('refuses an empty name', () => {
    expect(namespaceProblem('')).toBe('database name is empty (MongoDB needs a name)');
  });

  it("names the '.' and the rule", () => {
    expect(namespaceProblem('a.b')).toBe(
      `database name "a.b" has a '.' (MongoDB's database names cannot hold /\\. "$)`,
    );
  });

  it.each([
    ['/', "a '/'"],
    ['\\', "a '\\'"],
    ['.', "a '.'"],
    [' ', 'a space'],
    ['"', `a '"'`],
    ['$', "a '$'"],
  ])('refuses %j everywhere', (character, named) => {
    const problem = databaseNameProblem(`a${character}b`);
    expect(problem).toContain(`has ${named} (MongoDB's database names cannot hold /\\. "$)`);
  });

  it('refuses a NUL character', () => {
    expect(databaseNameProblem('a\0b')).toBe(
      `database name "a\\u0000b" has a NUL character (MongoDB's database names cannot hold /\\. "$ or NUL)`,
    );
  });

  it.each(['*', '<', '>', ':', '|', '?'])(
    "refuses Windows' %j on every platform, saying why",
    (character) => {
      const problem = databaseNameProblem(`a${character}b`);
      expect(problem).toContain(`has a '${character}' (MongoDB on Windows refuses *<>:|?`);
      expect(problem).toContain('mongo-bench refuses them on every platform');
    },
  );

  it('allows 63 bytes, refuses 64', () => {
    expect(MAX_DATABASE_NAME_BYTES).toBe(63);
    expect(namespaceProblem('a'.repeat(63))).toBeUndefined();
    expect(namespaceProblem('a'.repeat(64))).toBe(
      `database name "${'a'.repeat(64)}" is 64 bytes in UTF-8: MongoDB allows at most 63`,
    );
  });

  it('measures in UTF-8 bytes: a two-byte character that crosses the limit is refused', () => {
    const fits = `${'a'.repeat(61)}é`; // 62 characters, 63 bytes
    const crosses = `${'a'.repeat(62)}é`; // 63 characters, 64 bytes
    expect(utf8Bytes(fits)).toBe(63);
    expect(namespaceProblem(fits)).toBeUndefined();
    expect(crosses.length).toBe(63);
    expect(namespaceProblem(crosses)).toMatch(/is 64 bytes in UTF-8: MongoDB allows at most 63$/);
  });

  it('counts three- and four-byte characters as the server does', () => {
    expect(namespaceProblem('€'.repeat(21))).toBeUndefined(); // 63 bytes
    expect(namespaceProblem(`${'€'.repeat(21)}a`)).toMatch(/is 64 bytes/);
    expect(namespaceProblem(`${'a'.repeat(59)}😀`)).toBeUndefined(); // 63 bytes
    expect(namespaceProblem(`${'a'.repeat(60)}😀`)).toMatch(/is 64 bytes/);
  });

  it('refuses a lone surrogate, which has no UTF-8 form', () => {
    expect(namespaceProblem('a\uD800b')).toBe(
      'database name "a\\ud800b" has a lone UTF-16 surrogate (U+D800), which has no UTF-8 form',
    );
  });

  it('reports the character before the length', () => {
    expect(namespaceProblem(`a.${'b'.repeat(70)}`)).toMatch(/has a '\.'/);
  });
});

describe('collection names', () => {
  it('accepts ordinary names, dots inside, a leading underscore or dash, non-ASCII', () => {
    for (const coll of ['orders', 'orders.2024', '_tmp', '-x', 'Bestellungen_ä', 'system'])
      expect(namespaceProblem('shop', coll)).toBeUndefined();
  });

  it('refuses an empty name', () => {
    expect(namespaceProblem('shop', '')).toBe('collection name is empty (MongoDB needs a name)');
  });

  it("refuses a leading '.'", () => {
    expect(collectionNameProblem('.orders')).toBe(
      `collection name ".orders" starts with '.' (MongoDB's collection names cannot hold $ or NUL, or start with '.')`,
    );
  });

  it("refuses a '$' anywhere", () => {
    for (const coll of ['$orders', 'ord$ers', 'orders$'])
      expect(collectionNameProblem(coll)).toMatch(/has a '\$'/);
  });

  it('refuses a NUL character', () => {
    expect(collectionNameProblem('a\0b')).toMatch(
      /^collection name "a\\u0000b" has a NUL character/,
    );
  });

  it('refuses a lone surrogate', () => {
    expect(collectionNameProblem('a\uDC00')).toMatch(/lone UTF-16 surrogate \(U\+DC00\)/);
  });

  it('checks the database name first', () => {
    expect(namespaceProblem('a/b', '$x')).toMatch(/^database name "a\/b"/);
  });
});

describe('the namespace length', () => {
  it('allows db.coll of exactly 255 bytes, refuses 256', () => {
    expect(MAX_NAMESPACE_BYTES).toBe(255);
    expect(namespaceProblem('d', 'c'.repeat(253))).toBeUndefined();
    expect(namespaceProblem('d', 'c'.repeat(254))).toBe(
      `namespace "d.${'c'.repeat(254)}" is 256 bytes in UTF-8: MongoDB allows at most 255 (database, '.' and collection together)`,
    );
  });

  it('counts the database, the dot and the collection in UTF-8 bytes', () => {
    const db = 'ü'.repeat(10); // 20 bytes
    expect(namespaceProblem(db, 'c'.repeat(234))).toBeUndefined(); // 20 + 1 + 234 = 255
    expect(namespaceProblem(db, 'c'.repeat(235))).toMatch(/is 256 bytes/);
    expect(namespaceProblem('d', `${'c'.repeat(252)}é`)).toMatch(/is 256 bytes/); // 1 + 1 + 254
  });

  it('allows 235 bytes for a sharded collection, refuses 236', () => {
    expect(MAX_SHARDED_NAMESPACE_BYTES).toBe(235);
    expect(namespaceProblem('d', 'c'.repeat(233), { sharded: true })).toBeUndefined();
    expect(namespaceProblem('d', 'c'.repeat(234), { sharded: true })).toMatch(
      /is 236 bytes in UTF-8: MongoDB allows at most 235 for a sharded collection/,
    );
  });

  it("leaves system.* and local's replset.* to the server, as it does", () => {
    expect(namespaceProblem('d', `system.${'c'.repeat(300)}`)).toBeUndefined();
    expect(namespaceProblem('local', `replset.${'c'.repeat(600)}`)).toBeUndefined();
    expect(namespaceProblem('d', `replset.${'c'.repeat(300)}`)).toMatch(/bytes in UTF-8/);
  });

  it('allows the internal databases their longer limit', () => {
    const fits = 'c'.repeat(MAX_INTERNAL_NAMESPACE_BYTES - 'config.'.length);
    expect(namespaceProblem('config', fits)).toBeUndefined();
    expect(namespaceProblem('config', `${fits}c`)).toMatch(
      /is 512 bytes in UTF-8: MongoDB allows at most 511 in config/,
    );
  });
});

describe('system namespaces as write targets', () => {
  it.each(['admin', 'local', 'config'])(
    'refuses the system database %s, whole or a collection',
    (db) => {
      const refusal = `${db} is a system database: mongo-bench never writes there on a deployment it did not start`;
      expect(systemNamespaceProblem(db)).toBe(refusal);
      expect(systemNamespaceProblem(db, 'anything')).toBe(refusal);
    },
  );

  it('is case-sensitive as the server is: Admin is not the admin database, and it says so', () => {
    // A valid name of a user database (isAdminDB() compares exactly)...
    expect(namespaceProblem('Admin')).toBeUndefined();
    // ...that a write cannot use: the server refuses a name that differs from another only in case.
    for (const [db, system] of [
      ['Admin', 'admin'],
      ['ADMIN', 'admin'],
      ['Local', 'local'],
      ['CONFIG', 'config'],
    ]) {
      const problem = systemNamespaceProblem(db, 'orders');
      expect(problem).toMatch(
        new RegExp(`^database "${db}" differs from the system database ${system} only in case`),
      );
      expect(problem).not.toMatch(/is a system database/);
    }
  });

  it('accepts names that only start like a system database', () => {
    for (const db of ['admins', 'administration', 'localhost', 'configs', 'shop'])
      expect(systemNamespaceProblem(db, 'orders')).toBeUndefined();
  });

  it('refuses system.* collections in any database', () => {
    for (const coll of ['system.views', 'system.profile', 'system.js', 'system.buckets.weather'])
      expect(systemNamespaceProblem('shop', coll)).toBe(
        `"shop.${coll}" is a system collection: mongo-bench never writes system.* collections on a deployment it did not start`,
      );
  });

  it("refuses a '.system.' inside a collection name, which the server refuses to create", () => {
    expect(systemNamespaceProblem('shop', 'orders.system.x')).toBe(
      `"shop.orders.system.x" has '.system.' in its collection name: MongoDB refuses to create or write such a collection`,
    );
  });

  it('accepts names like system ones that are not: the server matches "system." exactly', () => {
    for (const coll of ['system', 'systems', 'System.views', 'my_system.x', 'orders.system'])
      expect(systemNamespaceProblem('shop', coll)).toBeUndefined();
  });

  it('accepts a whole user database', () => {
    expect(systemNamespaceProblem('shop')).toBeUndefined();
  });
});
