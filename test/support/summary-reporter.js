'use strict';
// Prints every skipped test with its reason (the reason is part of the test's title, see servers.ts)
// and a closing line "jest: N passed, N failed, N skipped" that CI logs can read.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = [];
    for (const file of results.testResults) {
      for (const t of file.testResults) {
        if (t.status === 'pending' || t.status === 'skipped' || t.status === 'todo')
          skipped.push(t.fullName);
      }
    }
    const lines = [];
    if (skipped.length) {
      lines.push('', `Skipped tests (${skipped.length}):`);
      for (const name of skipped) lines.push(`  - ${name}`);
    }
    const servers = process.env.MONGO_BENCH_TEST_SERVERS;
    if (servers) lines.push('', `Test servers: ${servers}`);
    lines.push(
      '',
      `jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests + results.numTodoTests} skipped`,
    );
    process.stdout.write(lines.join('\n') + '\n');
  }
}
module.exports = SummaryReporter;
