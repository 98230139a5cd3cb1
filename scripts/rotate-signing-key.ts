/**
 * Operator CLI: makes a newly generated Ed25519 key the service's signing key.
 * The old key stays published at /.well-known/jwks.json, so what it signed
 * keeps verifying; every process signs with the new key from its next
 * signature on (they read the current key from Postgres). Prints the new
 * public JWK only. Refused when SIGNING_KEY is set: change that instead.
 *   npm run signing-key:rotate
 */
import { withScriptDb } from './support/script-db.js';
import { rotateSigningKey } from '../shared/signing.js';

await withScriptDb(async (db, config) => {
  try {
    const jwk = await rotateSigningKey({ db, config });
    console.log(JSON.stringify({ kid: jwk.kid, jwk }));
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
});
