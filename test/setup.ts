import { ALL_ROUTES } from '../api/routes/index.js';
import { answersOffContract, checkAnswers } from './support/answer-check.js';
import { harness } from './support/harness.js';

checkAnswers(ALL_ROUTES);

/** Root hooks: one harness (services, database, app, workers) for the whole run. */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(180_000);
    await harness.start();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await harness.stop();
    const off = answersOffContract();
    if (off.length > 0) throw new Error(`answers that do not match their declared schema:\n${off.join('\n')}`);
  },
};
