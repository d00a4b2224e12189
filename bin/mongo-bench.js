#!/usr/bin/env node
'use strict';
// The executable parses nothing itself: it hands argv to the compiled CLI.
const { main } = require('../dist/cli/main.js');
main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(err && err.stack ? err.stack : String(err)); process.exitCode = 1; },
);
