export { isRemote, parseRemote, redactRemote } from './address.js';
export { moveRemote, openRemote, type RemoteOptions, resolveRemote } from './remote.js';
export { REMOTE_ENV } from './session.js';
