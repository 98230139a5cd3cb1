/** The incident module's public face: what other modules may use (they import only this file). */

// What other modules use (they import only this file; test/unit/module-faces.test.ts).
export { respond } from './report.js';
