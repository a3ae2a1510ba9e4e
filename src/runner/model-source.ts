// Where validate and profile init get the tenant's model: a schema cache folder (offline, no request
// and no sandbox started), or connect() and `$metadata` (the connection is closed once the model is read).
import type { ConnectionFlags } from '../config/index.js';
import { loadTenantModel, type ModelScope } from '../schema/load.js';
import type { TenantModel } from '../schema/model.js';

export interface ModelSourceOptions {
  flags: ConnectionFlags;
  /** The entities the caller touches (default all): live, custom entities outside it are not read. */
  scope?: ModelScope;
  /** Told one line when the embedded sandbox is used. */
  announce?: (line: string) => void;
}

export async function tenantModelFor({ flags, scope, announce }: ModelSourceOptions): Promise<TenantModel> {
  if (flags.schemas) return loadTenantModel({ schemasDir: flags.schemas });
  // Loaded only when needed: an offline run loads no HTTP client.
  const { connect } = await import('../config/connect.js');
  const connection = await connect({ flags, ...(announce && { announce }) });
  try {
    return await connection.tenant.model(scope);
  } finally {
    await connection.close();
  }
}
