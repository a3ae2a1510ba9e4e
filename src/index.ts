// catalog-io as a library: every command is a function here first; the CLI is one client of it.

export { CatalogClient } from './api/catalog.js';
export type { CountersSnapshot } from './api/counters.js';
export { DamClient } from './api/dam.js';
export { ApiError } from './api/errors.js';
export { main } from './cli/main.js';
export { type Connection, type ConnectOptions, connect } from './config/index.js';
export { CatalogIoError, type ErrorCode, isCatalogIoError } from './errors.js';
export { FileLockStore } from './lock/file.js';
export { RedisLockStore } from './lock/redis.js';
export type { LockHolder, LockScope, RunLockStore } from './lock/types.js';
export { loadProfile } from './mappers/profile.js';
export type { Profile } from './mappers/profile-types.js';
export type { Draft } from './mappers/types.js';
export { type NotifyOptions, type NotifyResult, notifyRunEnd, parseNotifyTarget } from './notify/index.js';
export { type OpenedSource, openSource, type ReaderOptions } from './readers/index.js';
export type { Cell, Location, SourceRow } from './readers/types.js';
export { type DemoResult, runDemo } from './runner/demo.js';
export { type ExportOptions, type ExportResult, exportCatalog } from './runner/export/index.js';
export { type ImportOptions, type ImportSummary, importFile, type RunStop } from './runner/import/run.js';
export type { RunSummary } from './runner/summary-types.js';
export { type ValidateFileOptions, type ValidateFileResult, validateFile } from './runner/validate.js';
export type { SandboxOptions } from './sandbox/context.js';
export type { SandboxHandle } from './sandbox/index.js';
export { loadTenantModel } from './schema/load.js';
export type { EntityModel, FieldModel, TenantModel } from './schema/model.js';
export { startSandbox } from './start-sandbox.js';
