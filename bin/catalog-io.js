#!/usr/bin/env node
// Thin launcher for the compiled CLI (built by `npm run build`, which `npm ci` runs through `prepare`).
import '../dist/cli/run.js';
