/** `scripts --dry-run`: the plan as plain-text tables (processes, then steps). */
import { SetupPlan } from './plan';
import { describeProcess } from './render-start-sh';

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

export function renderPlanTable(plan: SetupPlan): string {
  const t = plan.topology;
  const out: string[] = [
    `Topology ${t.name} (MongoDB ${t.serverVersion.text}); clients connect to ${t.uri}`,
    '',
  ];
  out.push(
    ...table(
      ['process', 'address', 'role', 'command line'],
      plan.processes.map((p) => [
        p.name,
        p.address,
        describeProcess(p),
        [p.kind, ...p.args].join(' '),
      ]),
    ),
  );
  out.push('');
  if (plan.steps.length === 0) {
    out.push('No setup steps: a standalone needs none.');
  } else {
    out.push(
      ...table(
        ['#', 'target', 'db', 'command', 'skipped when'],
        plan.steps.map((s, i) => [
          String(i + 1),
          `${s.target} (${plan.targets[s.target].address})`,
          s.db,
          JSON.stringify(s.command) +
            (s.waitFor ? ` + wait for PRIMARY (${s.waitFor.timeoutMs / 1000} s)` : ''),
          (s.check ? s.check.kind : '-') + (s.expectSkip ? ' (expected: already in place)' : ''),
        ]),
      ),
    );
  }
  for (const note of plan.notes) out.push(`note: ${note}`);
  return out.join('\n') + '\n';
}
