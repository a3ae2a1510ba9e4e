// Configuration: settings from flags, environment and config file, and connect() for commands.
export {
  CONFIG_FILE_NAME,
  type ConnectionFlags,
  type ConnectionSettings,
  parseRateLimit,
  resolveSettings,
} from './config.js';
export { type Connection, type ConnectOptions, connect, type TenantInfo } from './connect.js';
export { connectionFlagsFrom, connectionOptions, numberFlag } from './flags.js';
