// The export runner's public face: exportCatalog() and what it takes and gives.
export { type PlannedColumn, planTable, resolveLanguages, type TablePlan } from './columns.js';
export {
  ATTRIBUTE_SETS,
  type EntityExport,
  type ExportOptions,
  type ExportProgress,
  type ExportResult,
  entityNames,
  exportCatalog,
} from './export.js';
export { changedIds, ExportHistory, parseSince } from './since.js';
export { EXPORT_FORMATS, type ExportFormat, resolveTarget } from './target.js';
