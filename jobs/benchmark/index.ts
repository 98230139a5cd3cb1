/** The benchmark module's public face: the computation its step does, for the bench and its peers (bench/peers). */
export { expectedDigest, STEP_NAMES, stepName, stepWork } from './logic.js';
