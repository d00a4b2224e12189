/** nop: does nothing, on the client (benchRun counts it in totalOps; mongo-perf's Commands.nop). */
import type { LocalOpKind } from './op-kind';

export const NOP: LocalOpKind<'nop'> = {
  type: 'nop',
  fields: ['weight'],
  opClass: 'none',
  local: true,
  parse() {},
  compile() {},
  bind: () => () => undefined,
};
