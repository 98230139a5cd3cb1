import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SCHEMA_FILE, schemaSource, serviceDocument } from '../../sdk/scripts/generate.js';
import { harness } from '../support/harness.js';

/** The first line where two texts differ, for a failure message that says where to look. */
function firstDifference(a: string, b: string): string {
  const x = a.split('\n');
  const y = b.split('\n');
  const i = x.findIndex((line, n) => line !== y[n]);
  const at = i < 0 ? Math.min(x.length, y.length) : i;
  return `line ${at + 1}: committed ${JSON.stringify(y[at] ?? '<end>')}, generated ${JSON.stringify(x[at] ?? '<end>')}`;
}

describe('SDK: its types follow the OpenAPI document', function () {
  this.timeout(120_000);
  let dir: string;
  before(async () => (dir = await mkdtemp(path.join(os.tmpdir(), 'awp-sdk-types-'))));
  after(() => rm(dir, { recursive: true, force: true }));

  it('sdk/src/schema.d.ts is what openapi-typescript makes of GET /openapi.json (npm run sdk:generate)', async () => {
    const served = (await harness.call('GET', '/openapi.json')).body;
    const fresh = path.join(dir, 'schema.d.ts');
    await writeFile(fresh, await schemaSource(served));
    const [generated, committed] = await Promise.all([readFile(fresh, 'utf8'), readFile(SCHEMA_FILE, 'utf8')]);
    assert.ok(
      generated === committed,
      `the SDK's types drifted from the service: ${firstDifference(generated, committed)}`,
    );
  });

  it('the document the script builds without a server is the one the service serves', async () => {
    const served = (await harness.call('GET', '/openapi.json')).body;
    const built = serviceDocument();
    assert.deepEqual({ ...built, servers: null }, { ...served, servers: null });
  });

  it('a change to the document changes the generated types (the comparison can fail)', async () => {
    const doc = structuredClone(serviceDocument()) as { components: { schemas: Record<string, any> } };
    doc.components.schemas.RunCanceled!.properties.reason = { type: 'string' };
    const changed = await schemaSource(doc);
    const committed = await readFile(SCHEMA_FILE, 'utf8');
    assert.notEqual(changed, committed);
    assert.match(firstDifference(changed, committed), /reason/);
  });
});
