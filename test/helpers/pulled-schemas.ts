// A fresh sandbox tenant's `$metadata` pulled into a folder, the sandbox stopped after: for tests and
// benchmarks that validate offline (`--schemas`). No test runner here, so the benchmarks can use it.
import { connect } from '../../src/config/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { pullSchemas } from '../../src/schema/load.js';

export async function pullSandboxSchemas(dir: string): Promise<void> {
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
}
