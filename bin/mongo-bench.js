#!/usr/bin/env node
'use strict';
// The executable parses nothing itself: it hands argv to the compiled CLI.
const { main } = require('../dist/cli/main.js');
// `mongo-bench ... | head` closes the pipe early: stop quietly, as other CLIs do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}
main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exitCode = 1;
  },
);
