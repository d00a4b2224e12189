/** The loader's documents from a --docs-like template: the loader's _id first, the template's fields, reproducible by seed. */
import { templateDocumentFactory } from '../../lib/workload/language/template-documents';
import { usageMessage } from '../support/cli';

describe('templateDocumentFactory', () => {
  it("puts the loader's _id first in place of the template's, and fills the rest from the template", () => {
    const factory = templateDocumentFactory(
      { _id: { '#OID': 1 }, qty: { '#RAND_INT': [5, 65] }, tag: 'x' },
      7,
    );
    const docs = [0, 1, 2].map((id) => factory.make(id));
    docs.forEach((d, id) => {
      expect(Object.keys(d)).toEqual(['_id', 'qty', 'tag']);
      expect(d._id).toBe(id);
      expect(d.qty).toBeGreaterThanOrEqual(5);
      expect(d.qty).toBeLessThan(65);
    });
  });

  it('repeats with the same seed, and gives each document its own object even from a constant template', () => {
    const a = templateDocumentFactory({ qty: { '#RAND_INT': [0, 1_000_000] } }, 3);
    const b = templateDocumentFactory({ qty: { '#RAND_INT': [0, 1_000_000] } }, 3);
    expect([0, 1, 2].map((id) => a.make(id))).toEqual([0, 1, 2].map((id) => b.make(id)));
    const constant = templateDocumentFactory({ tag: 'x' }, 1);
    expect([constant.make(0), constant.make(1)]).toEqual([
      { _id: 0, tag: 'x' },
      { _id: 1, tag: 'x' },
    ]);
    expect(usageMessage(() => templateDocumentFactory([1], 1))).toBe(
      'option --docs-like: the document template must be an object',
    );
  });
});
