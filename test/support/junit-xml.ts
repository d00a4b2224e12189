/**
 * JUnit XML read back by a real XML parser (fast-xml-parser's validator, then its parser), so the
 * tests check well-formedness and escaping, not only what a regex sees. The parser's output is mapped
 * to the fields CI's JUnit readers take: suites, their totals, each case's failure or skipped.
 */
import { readFileSync } from 'node:fs';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

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

type Node = Record<string, string | undefined> & { '#text'?: string };

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // Values stay strings: a case named "1" or a message "true" is not a number or a boolean.
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: false,
  isArray: (name) => name === 'testsuite' || name === 'testcase',
});

/** The file's suites; throws (with the validator's message) when it is not well-formed JUnit XML. */
export function readJunit(file: string): ParsedSuite[] {
  const xml = readFileSync(file, 'utf8');
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    throw new Error(`${file}: not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const doc = parser.parse(xml) as {
    testsuites?: { testsuite?: Array<Node & { testcase?: Node[] }> };
  };
  if (!doc.testsuites) throw new Error(`${file}: the root is not <testsuites>`);
  return (doc.testsuites.testsuite ?? []).map((s) => ({
    name: String(s.name),
    tests: Number(s.tests),
    failures: Number(s.failures),
    errors: Number(s.errors),
    skipped: Number(s.skipped),
    cases: (s.testcase ?? []).map((c) => {
      const out: ParsedCase = {
        name: String(c.name),
        classname: String(c.classname),
        time: Number(c.time),
      };
      const failure = (c as unknown as { failure?: Node }).failure;
      const skipped = (c as unknown as { skipped?: Node | string }).skipped;
      if (failure) out.failure = { message: String(failure.message), text: failure['#text'] ?? '' };
      if (skipped !== undefined)
        out.skipped = { message: String(typeof skipped === 'object' ? skipped.message : '') };
      return out;
    }),
  }));
}

/** Kept as a describe: the parser is a dev dependency of this repository, always here. */
export function describeWithXmlParser(title: string, fn: () => void): void {
  describe(title, fn);
}
