// `catalog-io demo` (and `npm start`): the newcomer's tour against a sandbox in this process.
import type { CommandModule } from 'yargs';
import { EXIT } from '../output.js';
import type { CommandFactory } from './index.js';

interface DemoArgs {
  out: string;
}

export const demoCommand: CommandFactory = (out, setExitCode) =>
  ({
    command: 'demo',
    describe: 'A tour: validate, import, re-import and export the sample feeds against a sandbox tenant',
    builder: (y) =>
      y.option('out', {
        type: 'string',
        default: 'out',
        describe: 'Folder for the catalog, reports and feeds',
      }),
    handler: async (args: DemoArgs) => {
      // Loaded on use: the demo brings the sandbox and its image tools.
      const { runDemo } = await import('../../runner/demo.js');
      const result = await runDemo({ outDir: args.out, say: (line) => out.print(line) });
      setExitCode(result.writesOnReimport === 0 ? EXIT.OK : EXIT.ROWS_FAILED);
    },
  }) as CommandModule<object, DemoArgs>;
