/**
 * JUnit XML read back by a real XML parser (Python's xml.etree.ElementTree, as CI tools that read
 * JUnit do), so the tests check well-formedness and escaping, not only what a regex sees. Without
 * python3, suites declared with describeWithXmlParser are skipped with the reason in their title.
 */
import { execFileSync, spawnSync } from 'node:child_process';

export interface ParsedCase {
  name: string;
  classname: string;
  time: number;
  failure?: { message: string; text: string };
  skipped?: { message: string };
}

export interface ParsedSuite {
  name: string;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  cases: ParsedCase[];
}

const READ = String.raw`
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
if root.tag != 'testsuites': raise SystemExit('root is <%s>, not <testsuites>' % root.tag)
suites = []
for s in root.findall('testsuite'):
    cases = []
    for c in s.findall('testcase'):
        case = {'name': c.get('name'), 'classname': c.get('classname'), 'time': float(c.get('time'))}
        f = c.find('failure')
        if f is not None: case['failure'] = {'message': f.get('message'), 'text': f.text or ''}
        k = c.find('skipped')
        if k is not None: case['skipped'] = {'message': k.get('message')}
        cases.append(case)
    suites.append({'name': s.get('name'), 'tests': int(s.get('tests')), 'failures': int(s.get('failures')),
                   'errors': int(s.get('errors')), 'skipped': int(s.get('skipped')), 'cases': cases})
json.dump(suites, sys.stdout)
`;

let found: boolean | undefined;

/** Whether python3 with its XML parser is here (asked once). */
function python(): boolean {
  found ??=
    spawnSync('python3', ['-c', 'import xml.etree.ElementTree'], { stdio: 'ignore' }).status === 0;
  return found;
}

/** The file's suites; throws (with the parser's message) when it is not well-formed JUnit XML. */
export function readJunit(file: string): ParsedSuite[] {
  return JSON.parse(
    execFileSync('python3', ['-c', READ, file], { encoding: 'utf8' }),
  ) as ParsedSuite[];
}

export function describeWithXmlParser(title: string, fn: () => void): void {
  if (python()) describe(title, fn);
  else describe.skip(`${title} [skipped: no python3 with xml.etree to parse JUnit XML]`, fn);
}
