#!/usr/bin/env node
// Thin launcher: the CLI lives in the library so tests and other programs can call main() directly.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
