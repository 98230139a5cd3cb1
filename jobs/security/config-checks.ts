import { DockerfileParser } from 'dockerfile-ast';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode, type YAMLMap } from 'yaml';
import type { ConfigKind, SecurityFinding } from './schemas.js';

/**
 * Cheap configuration checks beside the secret scan: a Dockerfile whose
 * image runs as root or builds from a moving `latest`, and GitHub Actions
 * workflows that paste untrusted event text into a shell, or run a pull
 * request's code with the base repository's secrets (`pull_request_target`
 * checking out the head). Read with a Dockerfile parser and a YAML parser.
 */

type Draft = Omit<SecurityFinding, 'category' | 'file'>;

const finding = (
  kind: ConfigKind,
  ruleId: string,
  severity: Draft['severity'],
  line: number,
  column: number,
  message: string,
  snippet: string,
): Draft => ({
  ruleId,
  kind,
  line,
  column,
  severity,
  message,
  evidence: { prefix: '', length: 0, snippet: snippet.slice(0, 300) },
});

export const isDockerfile = (path: string) => /(^|\/)(Dockerfile|Containerfile)(\.[\w.-]+)?$|\.dockerfile$/i.test(path);
export const isWorkflow = (path: string) => /(^|\/)\.github\/workflows\/[^/]+\.ya?ml$/i.test(path);

export function dockerfileChecks(content: string): Draft[] {
  const doc = DockerfileParser.parse(content);
  const out: Draft[] = [];
  const froms = doc.getFROMs();
  const stages = new Set(froms.map((f) => f.getBuildStage()?.toLowerCase()).filter(Boolean));
  for (const from of froms) {
    const image = from.getImageName();
    if (
      !image ||
      image === 'scratch' ||
      image.includes('$') ||
      stages.has(image.toLowerCase()) ||
      from.getImageDigest()
    )
      continue;
    const tag = from.getImageTag();
    if (tag && tag !== 'latest') continue;
    const { line, character } = from.getRange().start;
    out.push(
      finding(
        'dockerfileLatestTag',
        'awp/dockerfile-latest-tag',
        'warning',
        line + 1,
        character + 1,
        `FROM ${from.getImage()}${tag ? '' : ' (no tag: latest)'} builds from whatever latest is that day: ` +
          `pin a version, or a digest (@sha256:…)`,
        `FROM ${from.getImage()}`,
      ),
    );
  }
  const last = froms[froms.length - 1];
  if (last) {
    const stageStart = last.getRange().start.line;
    const users = doc
      .getInstructions()
      .filter((i) => i.getKeyword() === 'USER' && i.getRange().start.line > stageStart);
    const user = users[users.length - 1];
    const name = user?.getArgumentsContent()?.trim().split(':')[0] ?? null;
    if (!user || name === 'root' || name === '0') {
      const at = user?.getRange().start ?? last.getRange().start;
      out.push(
        finding(
          'dockerfileRootUser',
          'awp/dockerfile-root-user',
          'warning',
          at.line + 1,
          at.character + 1,
          user
            ? `USER ${name} runs the container as root: a process that is broken into owns the container`
            : 'the final stage sets no USER, so the container runs as root (unless its base image sets another ' +
                'user): add USER with an unprivileged user',
          user ? `USER ${user.getArgumentsContent()}` : `FROM ${last.getImage()}`,
        ),
      );
    }
  }
  return out;
}

// Event fields that are numbers, ids, hashes or service-made URLs: not attacker-written text.
const SAFE_EVENT_FIELD = new RegExp(
  [
    String.raw`\.(number|id|node_id|sha|before|after|run_id|run_number|run_attempt|created_at`,
    String.raw`|updated_at|closed_at|merged_at|html_url|url|size|additions|deletions`,
    String.raw`|changed_files|commits|comments|draft|merged|state|action|forced`,
    String.raw`|installation\.id)$`,
  ].join(''),
);
const EXPRESSION = /\$\{\{\s*([^}]*?)\s*\}\}/g;

function untrusted(expr: string): string | null {
  for (const m of expr.matchAll(/\b(github\.event(?:\.[\w-]+|\[[^\]]+\]|\.\*)+|github\.head_ref)/g)) {
    const ref = m[1]!;
    if (ref === 'github.head_ref' || !SAFE_EVENT_FIELD.test(ref)) return ref;
  }
  return null;
}

const get = (map: unknown, key: string): unknown => (isMap(map) ? (map as YAMLMap).get(key, true) : undefined);

function triggers(on: unknown): string[] {
  if (isScalar(on)) return [String(on.value)];
  if (isSeq(on)) return on.items.map((i) => (isScalar(i) ? String(i.value) : '')).filter(Boolean);
  if (isMap(on)) return on.items.map((p) => (isScalar(p.key) ? String(p.key.value) : '')).filter(Boolean);
  return [];
}

export function workflowChecks(content: string): Draft[] {
  const lines = new LineCounter();
  const doc = parseDocument(content, { lineCounter: lines, uniqueKeys: false });
  const out: Draft[] = [];
  const pos = (node: YamlNode | undefined, offsetInNode = 0) => {
    const p = lines.linePos((node?.range?.[0] ?? 0) + offsetInNode);
    return { line: p.line, column: p.col };
  };
  const prTarget = triggers(get(doc.contents, 'on')).includes('pull_request_target');
  const jobs = get(doc.contents, 'jobs');
  if (!isMap(jobs)) return out;
  for (const job of jobs.items) {
    const steps = get(job.value, 'steps');
    if (!isSeq(steps)) continue;
    for (const step of steps.items) {
      const uses = get(step, 'uses');
      const usesName = isScalar(uses) ? String(uses.value) : '';
      const scripts: YamlNode[] = [];
      const run = get(step, 'run');
      if (isScalar(run)) scripts.push(run);
      const script = get(get(step, 'with'), 'script');
      if (/^actions\/github-script@/.test(usesName) && isScalar(script)) scripts.push(script);
      for (const node of scripts) {
        const source = content.slice(node.range?.[0] ?? 0, node.range?.[1] ?? 0);
        for (const m of source.matchAll(EXPRESSION)) {
          const ref = untrusted(m[1]!);
          if (!ref) continue;
          const { line, column } = pos(node, m.index);
          out.push(
            finding(
              'actionsScriptInjection',
              'awp/actions-script-injection',
              'error',
              line,
              column,
              `\${{ ${ref} }} is pasted into a ${node === run ? 'shell script' : 'github-script'} before it ` +
                `runs: whoever writes that text (an issue title, a branch name) runs commands with this ` +
                `workflow's token. Pass it through env: and use "$VAR" instead`,
              m[0],
            ),
          );
        }
      }
      if (prTarget && /^actions\/checkout@/.test(usesName)) {
        const ref = get(get(step, 'with'), 'ref');
        const refText = isScalar(ref) ? String(ref.value) : '';
        if (/github\.event\.pull_request\.head\.(sha|ref)|github\.head_ref|refs\/pull\//.test(refText)) {
          const { line, column } = pos(ref as YamlNode);
          out.push(
            finding(
              'actionsPullRequestTargetCheckout',
              'awp/actions-pull-request-target-checkout',
              'error',
              line,
              column,
              "pull_request_target runs with the base repository's secrets and a write token; checking out " +
                "the pull request's head runs the contributor's code with them. Use pull_request, or keep the " +
                "head's code away from any step that runs it",
              `ref: ${refText}`,
            ),
          );
        }
      }
    }
  }
  return out;
}

export const isConfigFile = (path: string) => isDockerfile(path) || isWorkflow(path);

/** The config findings of one file (none for files that are neither a Dockerfile nor a workflow). */
export function configChecks(path: string, content: string): Draft[] {
  if (isDockerfile(path)) return dockerfileChecks(content);
  if (isWorkflow(path)) return workflowChecks(content);
  return [];
}
