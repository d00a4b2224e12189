/**
 * let: sets a variable for the ops after it (`{op: "let", target: "x", value: {"#RAND_INT": [0, 9]}}`),
 * on the client. Not drawn by weight: a variable set by one op for the next needs the ops in order.
 */
import type { LocalOpKind } from './op-kind';

export const LET: LocalOpKind<'let'> = {
  type: 'let',
  fields: ['target', 'value'],
  opClass: 'none',
  local: true,
  parse(f, spec) {
    const target = f.raw.target;
    if (typeof target !== 'string' || target === '')
      f.bad(`${f.at}.target`, `required for op "let": the variable name (a string)`);
    if (!('value' in f.raw)) f.bad(`${f.at}.value`, 'required for op "let"');
    spec.target = target as string;
    spec.value = f.raw.value;
  },
  compile(spec, compile, prepared, scope) {
    prepared.value = compile(spec.value, 'value');
    // Defined after its own value compiles: `let x = x` is an error, as in benchRun.
    prepared.varSlot = scope.defineVar(spec.target as string);
  },
  bind(op) {
    const value = op.value!;
    const slot = op.varSlot!;
    return (s) => {
      s.vars[slot] = value(s);
      return undefined;
    };
  },
};
