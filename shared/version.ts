/** Contract and service version, reported by /healthz, /v1/manifest and the OpenAPI document. */
export const SERVICE_VERSION = '0.1.0';
/** Citation strings and export formats carry this major. */
export const CONTRACT_MAJOR = 'v1';
