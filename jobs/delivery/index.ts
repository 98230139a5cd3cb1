/** The delivery module's public face: what other modules may use (they import only this file). */

// The kubernetes repair run applies a change under an autonomy grant the same way a delivery run does.
export { decideUnderGrant, runGrant } from './grant-use.js';
