export { MAX_ATTACHMENT_BYTES, mailSubject } from './mail.js';
export { type NotifyOptions, type NotifyResult, notifyRunEnd } from './notify.js';
export {
  NOTIFY_ENV,
  type NotifyOn,
  type NotifySettings,
  type NotifyTarget,
  notifySettingsFrom,
  parseNotifyOn,
  parseNotifyTarget,
  runFailed,
} from './targets.js';
export {
  DELIVERY_HEADER,
  postWebhook,
  SIGNATURE_HEADER,
  signBody,
  TIMESTAMP_HEADER,
  WEBHOOK_DEFAULTS,
} from './webhook.js';
