/**
 * The credential vault (issue 26): per-account credentials with write-only,
 * sealed values, referenced as cred:NAME. Other modules use only what is
 * exported here.
 */
export { credentialRoutes } from './routes.js';
export {
  referenceStates,
  resolveCredential,
  resolveReference,
  unavailable,
  type RefContext,
  type RefState,
} from './resolve.js';
export { CREDENTIAL_KINDS, type CredentialKind } from './schemas.js';
