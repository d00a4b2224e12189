import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package's own name and version, read from package.json (works from lib/common/ and from dist/lib/common/). */
export function toolInfo(): { name: string; version: string } {
  for (const candidate of [
    join(__dirname, '..', '..', 'package.json'),
    join(__dirname, '..', '..', '..', 'package.json'),
  ]) {
    try {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'mongo-bench') return { name: pkg.name, version: pkg.version ?? '0.0.0' };
    } catch {
      // try the next location
    }
  }
  return { name: 'mongo-bench', version: '0.0.0' };
}
