/**
 * The browser libraries a page inlines, read from node_modules at render time (so the page needs no
 * network and works from file://): Chart.js's UMD build, then Hammer.js and chartjs-plugin-zoom
 * (zoom and pan on time axes; the plugin's UMD build reads the globals `Chart` and `Hammer`).
 * Read once per process: `run` re-renders the report after every step. Also the page's copy of
 * chart-config.ts (chartConfigScript).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface InlineLibrary {
  name: string;
  /** The file's text, safe inside a <script> element. */
  source: string;
}

/** Inside <script>, only "</script" (any case) ends the element early; "<\/" means the same to JavaScript. */
export function scriptSafe(source: string): string {
  return source.replace(/<\/(script)/gi, '<\\/$1');
}

function fromPackage(name: string, entry: string, file: string): InlineLibrary {
  // require.resolve finds each package's main entry (their "exports" maps hide package.json); the file sits beside it.
  const path = join(dirname(require.resolve(entry)), file);
  return { name, source: scriptSafe(readFileSync(path, 'utf8')) };
}

let cached: InlineLibrary[] | undefined;

/** Chart.js, Hammer.js, chartjs-plugin-zoom: in the order they must run. */
export function inlineLibraries(): InlineLibrary[] {
  cached ??= [
    fromPackage('chart.js', 'chart.js', 'chart.umd.min.js'),
    fromPackage('hammerjs', 'hammerjs', 'hammer.min.js'),
    fromPackage('chartjs-plugin-zoom', 'chartjs-plugin-zoom', 'chartjs-plugin-zoom.min.js'),
  ];
  return cached;
}

let chartConfig: string | undefined;

/**
 * lib/report/chart-config.ts as plain CommonJS JavaScript, for the page's script (which gives it an
 * `exports` object): the file the build (tsc) wrote beside this one, or, run from the TypeScript source
 * (tsx, jest), that source with its types stripped by swc (a dev dependency, there whenever the source
 * runs: the test runner's compiler; TypeScript's own transpiler costs ten times as long to load, in
 * every jest file that renders a page). The module imports nothing at run time; a `require` would fail
 * in the browser, so it is refused here.
 */
export function chartConfigScript(): string {
  if (chartConfig === undefined) {
    const file = require.resolve('../chart-config');
    const text = readFileSync(file, 'utf8');
    let code = text;
    if (file.endsWith('.ts')) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const swc = require('@swc/core') as typeof import('@swc/core');
      code = swc.transformSync(text, {
        filename: 'chart-config.ts',
        jsc: { parser: { syntax: 'typescript' }, target: 'es2020' },
        module: { type: 'commonjs' },
        sourceMaps: false,
      }).code;
    }
    code = code.replace(/^\/\/# sourceMappingURL=.*$/gm, '');
    if (/\brequire\(/.test(code))
      throw new Error(`${file} must import nothing at run time (the report page embeds it)`);
    chartConfig = scriptSafe(code);
  }
  return chartConfig;
}
