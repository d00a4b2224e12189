/** --docs-like's inference, without a server: field types, ranges, sizes, optional fields; no sampled value in the template. */
import { Long, ObjectId } from 'mongodb';
import { inferDocumentTemplate, parseDocsLike } from '../../lib/capture/docs-like';
import { usageMessage } from '../support/cli';

describe('--docs-like', () => {
  it('splits URI/db.coll, keeping the connection options', () => {
    expect(parseDocsLike('mongodb://h:27017/shop.orders?authSource=admin')).toEqual({
      uri: 'mongodb://h:27017/?authSource=admin',
      db: 'shop',
      coll: 'orders',
    });
    expect(parseDocsLike('mongodb+srv://c.example.net/a.b.c')).toEqual({
      uri: 'mongodb+srv://c.example.net/',
      db: 'a',
      coll: 'b.c',
    });
    expect(usageMessage(() => parseDocsLike('mongodb://h:27017/shop'))).toMatch(
      /^option --docs-like: expected URI\/database\.collection/,
    );
  });

  it('infers ranges, sizes and proportions, drops rare fields, and copies no value', () => {
    const docs = Array.from({ length: 10 }, (_, i) => ({
      _id: new ObjectId(),
      views: Long.fromNumber(1000 + i),
      email: `secret-${i}@example.com`,
      active: i < 8,
      at: new Date(Date.UTC(2025, 0, 1 + i)),
      ...(i === 0 ? { rare: 'only once' } : {}),
    }));
    const template = inferDocumentTemplate(docs);
    expect(template).toEqual({
      _id: { '#OID': 1 },
      views: { '#RAND_INT': [1000, 1010] },
      email: { '#RAND_STRING': [docs[5].email.length] },
      active: { '#PICK': { values: [true, false], weights: [8, 2] } },
      at: { '#RAND_DATE': [Date.UTC(2025, 0, 1), Date.UTC(2025, 0, 10) + 1] },
    });
    expect(JSON.stringify(template)).not.toContain('secret');
    expect(usageMessage(() => inferDocumentTemplate([]))).toMatch(/the collection is empty/);
  });
});
