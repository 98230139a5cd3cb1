/**
 * The envelopes module's public face: what other modules may use (they import only this file).
 */

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { insertEnvelopes } from './repository.js';
export { PartyId, SERVICE_PARTY } from './schemas.js';
export { assertBelongs, newEnvelope } from './service.js';
export { envelopeView } from './view.js';
export { ENVELOPE_KINDS, ENVELOPES } from './machine.js';
export { EnvelopeCreate, EnvelopeUpdate, EnvelopeView } from './schemas.js';
