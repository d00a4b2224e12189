import { dirname, join } from 'node:path';
import { GlobalFonts } from '@napi-rs/canvas';

/** The family every chart draws with. @napi-rs/canvas draws no text at all without a registered font. */
export const CHART_FONT_FAMILY = 'DejaVu Sans';

let registered = false;

/** Registers DejaVu Sans (regular and bold) from the dejavu-fonts-ttf package; idempotent. */
export function registerChartFonts(): void {
  if (registered) return;
  const ttf = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  for (const file of ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf']) {
    if (!GlobalFonts.registerFromPath(join(ttf, file), CHART_FONT_FAMILY)) {
      throw new Error(`could not register chart font ${join(ttf, file)}`);
    }
  }
  registered = true;
}
