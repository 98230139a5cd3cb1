import { harness } from './support/harness.js';

/** Root hooks: one harness (services, database, app, workers) for the whole run. */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(180_000);
    await harness.start();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await harness.stop();
  },
};
