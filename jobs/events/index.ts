/** The events module's public face: what other modules may use (they import only this file). */

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { retryAfterMs, sign } from './logic.js';
export { wakeDispatcher } from './wake.js';
export { reconcileOutbox, sweepLeases } from './fanout.js';
