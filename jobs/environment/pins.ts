/**
 * Version ranges compared with what pins them, with `semver`: each dependency range of package.json with the version
 * the lockfile resolved (package-lock.json v1–3), and `engines.node` with `.nvmrc` / `.node-version`. A pin outside
 * its range is a mismatch: the lockfile or the version file is stale, or the range is. Pure.
 */
import semver from 'semver';
import type { ProjectFiles } from './project-files.js';

export interface PinMismatch {
  name: string;
  range: string;
  pinned: string;
  source: string;
  message: string;
}

type Obj = Record<string, any>;

function lockedVersion(lock: Obj, name: string): string | null {
  const v = lock.packages?.[`node_modules/${name}`]?.version ?? lock.dependencies?.[name]?.version;
  return typeof v === 'string' ? v : null;
}

export function pinMismatches(p: ProjectFiles): PinMismatch[] {
  const out: PinMismatch[] = [];
  for (const pkgPath of p.named('package.json')) {
    const pkg = p.json(pkgPath);
    if (!pkg) continue;
    const dir = pkgPath.includes('/') ? pkgPath.slice(0, pkgPath.lastIndexOf('/') + 1) : '';
    const lockPath = p.paths.find((x) => x === `${dir}package-lock.json`);
    const lock = lockPath ? p.json(lockPath) : null;
    if (lock)
      for (const field of ['dependencies', 'devDependencies', 'optionalDependencies'])
        for (const [name, range] of Object.entries((pkg[field] ?? {}) as Record<string, unknown>)) {
          const pinned = lockedVersion(lock, name);
          if (typeof range !== 'string' || !pinned || !semver.validRange(range) || !semver.valid(pinned)) continue;
          if (!semver.satisfies(pinned, range, { includePrerelease: true }))
            out.push({
              name,
              range,
              pinned,
              source: `${pkgPath} ${field} vs ${lockPath}`,
              message: `${name}: ${lockPath} has ${pinned}, outside ${range} in ${pkgPath}`,
            });
        }
    const engine = pkg.engines?.node;
    if (typeof engine !== 'string' || !semver.validRange(engine)) continue;
    for (const file of ['.nvmrc', '.node-version']) {
      const at = p.paths.find((x) => x === `${dir}${file}`);
      const pinned = at ? p.text(at).split(/\r?\n/)[0]!.trim().replace(/^v/, '') : '';
      // `20` pins a major (a range of its own): it agrees when some version satisfies both.
      const agrees = semver.valid(pinned)
        ? semver.satisfies(pinned, engine)
        : !semver.validRange(pinned) || semver.intersects(pinned, engine);
      if (at && pinned && !agrees)
        out.push({
          name: 'node',
          range: engine,
          pinned,
          source: `${pkgPath} engines.node vs ${at}`,
          message: `node: ${at} pins ${pinned}, outside engines.node ${engine} in ${pkgPath}`,
        });
    }
  }
  return out;
}
