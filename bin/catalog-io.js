#!/usr/bin/env node
// Thin launcher for the CLI as built by `npm run build` (tsc, then the bundle of scripts/bundle.mjs),
// which `npm ci` runs through `prepare`.
import '../dist/bin/run.js';
