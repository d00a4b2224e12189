/**
 * The package as a user gets it (issue 25): `npm pack`, installed into an empty folder with no
 * network (`npm ci --offline --omit=dev`, the versions of this repository's lock, from npm's cache),
 * then the CLI's --help, a --dry-run and the API example of docs/api.md, run from the installed
 * package, not from the checkout; every link of its README and docs resolves inside it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { codeBlocks, DOC_URI, ROOT, tsProgram, useBuild } from '../support/doc-blocks';
import { crudUri, describeNeeding } from '../support/servers';

const run = promisify(execFile);

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  [field: string]: unknown;
}

/**
 * A lock for the empty project: mongo-bench from the tarball, and every non-dev package of this
 * repository's lock (its dependencies' tree, the versions CI tested), so `npm ci --offline` needs
 * nothing but npm's cache, which installing this repository filled.
 */
function projectLock(tarball: string, integrity: string): object {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const spec = `file:${tarball}`;
  const packages: Record<string, object> = {
    '': { name: 'first-hour', dependencies: { 'mongo-bench': spec } },
    'node_modules/mongo-bench': {
      version: pkg.version,
      resolved: spec,
      integrity,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path || entry.dev) continue;
    const { devOptional: _devOptional, ...rest } = entry;
    packages[path] = rest;
  }
  return { name: 'first-hour', lockfileVersion: 3, requires: true, packages };
}

/** Relative links ([text](target)) of a Markdown page that do not resolve to a file or folder. */
function deadLinks(root: string, page: string): string[] {
  const text = readFileSync(join(root, page), 'utf8');
  const dead: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1].split('#')[0];
    if (!target || /^[a-z][a-z+.-]*:/i.test(target)) continue;
    if (!existsSync(normalize(join(root, dirname(page), target)))) dead.push(`${page}: ${m[1]}`);
  }
  return dead;
}

const BUILD_CURRENT = useBuild();
const describeBuilt = BUILD_CURRENT ? describe : describe.skip;
const title = `the packed package installed into an empty folder, offline${BUILD_CURRENT ? '' : ' [skipped: dist/ is older than lib/ or missing: run npm run build (npm ci does)]'}`;

describeBuilt(title, () => {
  let scratch: string;
  let project: string;
  let installed: string;
  const env = {
    ...process.env,
    MONGOMS_DISABLE_POSTINSTALL: '1',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'mb-tarball-'));
    // --ignore-scripts: pack the current build as it is (prepare would rebuild dist/ under other tests' feet).
    const packed = await run(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch],
      { cwd: ROOT, env },
    );
    const [{ filename, integrity }] = JSON.parse(packed.stdout) as Array<{
      filename: string;
      integrity: string;
    }>;
    project = join(scratch, 'first-hour');
    await run('mkdir', [project]);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify(
        {
          name: 'first-hour',
          private: true,
          dependencies: { 'mongo-bench': `file:../${filename}` },
        },
        null,
        2,
      ),
    );
    writeFileSync(
      join(project, 'package-lock.json'),
      JSON.stringify(projectLock(`../${filename}`, integrity), null, 2),
    );
    const started = Date.now();
    await run('npm', ['ci', '--offline', '--omit=dev', '--no-audit', '--no-fund'], {
      cwd: project,
      env,
    });
    console.log(
      `packed ${filename}; npm ci --offline --omit=dev of it into an empty folder took ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    installed = join(project, 'node_modules', 'mongo-bench');
  }, 240_000);

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('ships the docs, examples and scripts its README and --help link to, and the metadata a registry shows', () => {
    for (const dir of ['bin', 'dist', 'docs', 'examples', 'shell-scripts'])
      expect(existsSync(join(installed, dir))).toBe(true);
    const pages = [
      'README.md',
      ...readdirSync(join(installed, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.flatMap((page) => deadLinks(installed, page))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(pkg).toEqual(
      expect.objectContaining({
        description: expect.any(String),
        license: 'MIT',
        keywords: expect.arrayContaining(['mongodb', 'benchmark']),
      }),
    );
    expect(existsSync(join(installed, 'test'))).toBe(false); // the package is not the repository
  });

  it('--help runs from the installed bin, and the pages it names are there', async () => {
    const { stdout } = await run('npx', ['--no', '--', 'mongo-bench', '--help'], {
      cwd: project,
      env,
    });
    expect(stdout).toMatch(/Usage: mongo-bench/);
    // It says where the pages it names are: inside the installed package.
    expect(stdout).toContain(
      `Documentation: ${join(installed, 'README.md')}, and one page per part in ${join(installed, 'docs')}/`,
    );
    for (const command of ['run', 'scripts', 'report', 'compare'])
      expect(stdout).toContain(command);
    const runHelp = await run('npx', ['--no', '--', 'mongo-bench', 'run', '--help'], {
      cwd: project,
      env,
    });
    const named = runHelp.stdout.match(/docs\/[a-z-]+\.md/g) ?? [];
    expect(named.length).toBeGreaterThan(0);
    for (const page of named) expect(existsSync(join(installed, page))).toBe(true);
  }, 60_000);

  it('run --dry-run plans without connecting', async () => {
    const { stdout } = await run(
      join(project, 'node_modules', '.bin', 'mongo-bench'),
      ['run', '--dry-run', '--uri', DOC_URI, '--max-clients', '4'],
      { cwd: project, env },
    );
    expect(stdout).toContain('Nothing was started or connected (--dry-run).');
    expect(stdout).toMatch(/clients 1, 2, 4/);
  }, 60_000);

  describeNeeding('crud', 'the API example of the installed docs/api.md', () => {
    it('runs with require("mongo-bench") resolving to the installed package', async () => {
      const block = codeBlocks(
        readFileSync(join(installed, 'docs', 'api.md'), 'utf8'),
        'docs/api.md',
      ).find((b) => b.lang === 'ts' && b.flags.includes('run'));
      expect(block).toBeDefined();
      // Plain JavaScript (no tsx in a project that did not install dev tools), as tsc would emit it.
      const js = ts.transpileModule(tsProgram(block!.code.split(DOC_URI).join(crudUri())), {
        compilerOptions: {
          module: ts.ModuleKind.CommonJS,
          target: ts.ScriptTarget.ES2022,
          esModuleInterop: true,
        },
      }).outputText;
      writeFileSync(join(project, 'example.js'), js);
      const resolved = await run(process.execPath, ['-p', 'require.resolve("mongo-bench")'], {
        cwd: project,
        env,
      });
      expect(resolved.stdout.trim()).toBe(join(installed, 'dist', 'index.js'));
      const { stdout } = await run(process.execPath, ['example.js'], {
        cwd: project,
        env,
        timeout: 100_000,
      });
      expect(stdout).toMatch(/\d+ ops\/s/);
      expect(existsSync(join(project, 'reports', 'api-example', 'results.json'))).toBe(true);
      expect(existsSync(join(project, 'baseline.json'))).toBe(true);
    }, 120_000);
  });
});
