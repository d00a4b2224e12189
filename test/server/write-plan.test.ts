/**
 * The write plan's one rule (lib/server/write-plan.ts), on every case of what a namespace can hold: absent,
 * empty and not mongo-bench's, owned, holding a user's documents; for each action, each consent, and the
 * results store and control database, which no consent opens to a user's data.
 */
import {
  Consent,
  judgeNamespace,
  judgeServerChange,
  NAMESPACE_ACTIONS,
  NamespaceEntry,
  NamespaceState,
  refusalText,
  writtenNamespaces,
} from '../../lib/server/write-plan';

const entry = (over: Partial<NamespaceEntry> = {}): NamespaceEntry => ({
  kind: 'namespace',
  db: 'shop',
  coll: 'orders',
  action: 'write',
  source: 'workload',
  detail: 'op 2 (update)',
  consent: '--no-load',
  ...over,
});
const plan = (...consents: Consent[]) => ({ ours: false, consents: new Set(consents) });
const users: NamespaceState = { exists: true, docs: 12, owned: false, why: 'no marker' };
const emptyUsers: NamespaceState = { exists: true, docs: 0, owned: false, why: 'no marker' };
const owned: NamespaceState = { exists: true, docs: 12, owned: true, why: 'marked, unchanged' };

describe('the write plan rule', () => {
  it.each(NAMESPACE_ACTIONS)('%s: absent or owned is allowed without consent', (action) => {
    expect(judgeNamespace(entry({ action }), { exists: false }, plan()).allowed).toBe(true);
    expect(judgeNamespace(entry({ action }), owned, plan()).allowed).toBe(true);
  });

  it.each(NAMESPACE_ACTIONS)(
    "%s: a user's documents are refused without the entry's consent, allowed with it",
    (action) => {
      const refused = judgeNamespace(
        entry({ action, consent: '--drop' }),
        users,
        plan('--no-load'),
      );
      expect(refused).toMatchObject({ allowed: false, consent: '--drop' });
      expect(refused.why).toMatch(/holds 12 documents mongo-bench did not write/);
      expect(
        judgeNamespace(entry({ action, consent: '--drop' }), users, plan('--drop')).allowed,
      ).toBe(true);
    },
  );

  it("an empty collection that is not mongo-bench's may be filled, written or indexed, never dropped, recreated or emptied without consent", () => {
    for (const action of ['create', 'fill', 'write', 'index'] as const)
      expect(judgeNamespace(entry({ action }), emptyUsers, plan()).allowed).toBe(true);
    for (const action of ['drop', 'recreate', 'empty'] as const) {
      const verdict = judgeNamespace(entry({ action, consent: '--drop' }), emptyUsers, plan());
      expect(verdict.allowed).toBe(false);
      expect(verdict.why).toMatch(/indexes, options and shard key are the user's/);
    }
  });

  it('a results store or control database is never a collection of the user, whatever the consents', () => {
    for (const source of ['store', 'control-db'] as const) {
      const e = entry({ source, action: 'write', consent: null });
      const all = plan('--drop', '--no-load', '--force', '--allow-setup-writes');
      expect(judgeNamespace(e, users, all)).toMatchObject({ allowed: false, consent: null });
      expect(judgeNamespace(e, { ...users, owned: true }, all).allowed).toBe(false);
      expect(judgeNamespace(e, { ...users, role: source }, plan()).allowed).toBe(true);
      expect(judgeNamespace(e, emptyUsers, plan()).allowed).toBe(true);
      expect(judgeNamespace(e, { exists: false }, plan()).allowed).toBe(true);
    }
    // A store is not a control database.
    const store = entry({ source: 'store', consent: null });
    expect(judgeNamespace(store, { ...users, role: 'control-db' }, plan()).allowed).toBe(false);
  });

  it('everything is allowed on a deployment mongo-bench started', () => {
    expect(
      judgeNamespace(entry({ action: 'drop' }), users, { ours: true, consents: new Set() }).allowed,
    ).toBe(true);
  });

  it('a server change needs its consent on a deployment mongo-bench did not start', () => {
    const change = {
      kind: 'server' as const,
      change: 'balancer' as const,
      target: 'cluster',
      detail: 'stop the balancer',
      consent: '--setup' as const,
      restore: 'started again',
    };
    expect(judgeServerChange(change, plan())).toMatchObject({ allowed: false, consent: '--setup' });
    expect(judgeServerChange(change, plan('--setup')).allowed).toBe(true);
    expect(judgeServerChange(change, { ours: true, consents: new Set() }).allowed).toBe(true);
  });

  it('the refusal names every refused entry and the consent that allows it', () => {
    const verdicts = [
      judgeNamespace(entry(), users, plan()),
      judgeNamespace(entry({ coll: 'new' }), { exists: false }, plan()),
      judgeNamespace(entry({ source: 'store', coll: 'results', consent: null }), users, plan()),
    ];
    const text = refusalText(verdicts)!;
    expect(text.split('\n')).toEqual([
      "nothing was written: 2 of the run's writes are refused",
      expect.stringMatching(
        /^ {2}- write shop\.orders \(the workload's write ops: op 2 \(update\)\): holds 12 documents .*; --no-load allows it/,
      ),
      expect.stringMatching(/^ {2}- write shop\.results \(the results store.*no option allows it/),
    ]);
    expect(refusalText([verdicts[1]])).toBeUndefined();
  });

  it('lists the written namespaces by source, once each', () => {
    const written = writtenNamespaces({
      ours: false,
      consents: new Set(),
      entries: [
        entry(),
        entry({ action: 'index' }),
        entry({ source: 'loader', coll: 'docs', db: 'mongo_bench' }),
        entry({ coll: undefined, db: 'x' }),
      ],
    });
    expect(Object.fromEntries(written)).toEqual({
      workload: ['shop.orders', 'database x'],
      loader: ['mongo_bench.docs'],
    });
  });
});
