// The demo tenant's schemas for the validation benchmarks, pulled once from an in-process sandbox into
// `dir`; the cases then read no network.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export async function pulledSchemas(dir: string): Promise<string> {
  if (existsSync(join(dir, 'index.json'))) return dir;
  const { startSandbox } = await import('../src/sandbox/index.js');
  const { connect } = await import('../src/config/index.js');
  const { pullSchemas } = await import('../src/schema/load.js');
  const sandbox = await startSandbox({ port: 0 });
  const connection = await connect({
    settings: { catalogUrl: sandbox.catalogUrl, damUrl: sandbox.damUrl, apiKey: sandbox.apiKey },
  });
  try {
    await pullSchemas(connection.catalog, dir);
  } finally {
    await connection.close();
    await sandbox.close();
  }
  return dir;
}
