/**
 * Defect 10 of issue 12: the benchRun script `scripts --workload` writes must run in the legacy
 * shell of the planned version. A 4.4 shell refuses readPrefMode (error 34394, "Benchrun op has
 * unsupported field"), so it is written only for a 5.0 shell, and the script says what was left out.
 */
import { renderLegacyBenchRunScript } from '../../lib/workload/language/legacy-script';

const workload = {
  name: 'rp',
  ops: [{ op: 'findOne', query: { _id: 1 }, readPreference: { mode: 'secondaryPreferred' } }],
};

describe('legacy benchRun script and the shell version', () => {
  it('leaves readPrefMode out for a 4.4 shell, and warns', () => {
    const text = renderLegacyBenchRunScript({ workload, shellVersion: { major: 4, minor: 4 } });
    expect(text).not.toContain('"readPrefMode"');
    expect(text).not.toContain('"readPreference"');
    expect(text).toContain("refuses benchRun's readPrefMode (error 34394)");
  });

  it('writes readPrefMode for a 5.0 shell (the default)', () => {
    expect(
      renderLegacyBenchRunScript({ workload, shellVersion: { major: 5, minor: 0 } }),
    ).toContain('"readPrefMode": "secondaryPreferred"');
    expect(renderLegacyBenchRunScript({ workload })).toContain(
      '"readPrefMode": "secondaryPreferred"',
    );
  });
});
