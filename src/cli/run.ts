// Process entry point: run the CLI with this process's arguments and exit with its code.
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
