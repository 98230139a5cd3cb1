/**
 * A cluster through the Kubernetes API with the official `@kubernetes/client-node` (issue 33). The credential is one
 * vault entry (`cred:NAME`), opened in the acting account: a kubeconfig (its current context; the CA, token or client
 * certificate inline: a kubeconfig naming files or exec plugins is refused, the service reads no local file for a
 * tenant) or a service account's `{"server", "token", "certificateAuthorityData"}` as JSON. Its `server` is the base
 * URL (https; a local fake or Prism in tests) and is checked by the egress rules like any connector endpoint; every
 * request goes out through the guarded egress client (pinned address, time and size limits) with the cluster's own CA.
 * The token is sent as `Authorization: Bearer` and never logged or answered: errors say what the API refused, not
 * what was sent.
 */
import type { AppsV1Api, CoreV1Api, RequestContext, ResponseContext } from '@kubernetes/client-node';
import type { Deps } from '../../shared/deps.js';
import { AppError, invalidPayload, notFound, policyViolation } from '../../shared/errors.js';
import { checkEgressUrl, egressFetch, EgressError, EgressRefused, type EgressTls } from '../../shared/http/egress.js';
import { resolveReference } from '../credentials/index.js';

type Obj = Record<string, any>;
type K8s = typeof import('@kubernetes/client-node');

/**
 * The client library, loaded on first use: it is the heaviest the service has (about 85 MB resident), and only a
 * process that reaches a cluster needs it, so every other process starts without it.
 */
let lib: K8s | undefined;
let loading: Promise<K8s> | undefined;
const k8s = async (): Promise<K8s> => (lib ??= await (loading ??= import('@kubernetes/client-node')));

const TIMEOUT_MS = 20_000;
/** A namespace's pods or events can be large; past this the answer is refused rather than read. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export interface ClusterAccess {
  server: string;
  token: string | null;
  tls: EgressTls;
}

const pem = (b64: unknown) =>
  typeof b64 === 'string' && b64 ? Buffer.from(b64, 'base64').toString('utf8') : undefined;

/** The credential's text as cluster access; messages name fields, never values. */
export async function clusterAccess(secret: string): Promise<ClusterAccess> {
  const text = secret.trim();
  if (text.startsWith('{')) {
    let v: Obj;
    try {
      v = JSON.parse(text) as Obj;
    } catch {
      throw invalidPayload('the cluster credential is neither a kubeconfig nor JSON {server, token, …}');
    }
    if (typeof v.server !== 'string' || typeof v.token !== 'string')
      throw invalidPayload('the cluster credential (JSON) needs server and token');
    return { server: v.server, token: v.token, tls: { ca: pem(v.certificateAuthorityData) ?? v.ca } };
  }
  const kc = new (await k8s()).KubeConfig();
  try {
    kc.loadFromString(text);
  } catch {
    throw invalidPayload('the cluster credential is not a valid kubeconfig');
  }
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster || !user) throw invalidPayload('the kubeconfig has no current context with a cluster and a user');
  if (cluster.caFile || user.certFile || user.keyFile || user.exec || user.authProvider || (user as Obj).tokenFile)
    throw invalidPayload(
      'the kubeconfig refers to files or an auth plugin; inline certificate-authority-data and a token (or ' +
        'client-certificate-data and client-key-data)',
    );
  return {
    server: cluster.server,
    token: user.token ?? null,
    tls: {
      ca: pem(cluster.caData),
      cert: pem(user.certData),
      key: pem(user.keyData),
      servername: cluster.tlsServerName,
    },
  };
}

/** The API's refusal in words a client can act on; 5xx, 429 and connection failures are `unavailable` (retried). */
export function clusterFailure(err: unknown, what: string): AppError {
  if (err instanceof AppError) return err;
  if (lib && err instanceof lib.ApiException) {
    let status: Obj = {};
    try {
      status = typeof err.body === 'string' ? (JSON.parse(err.body) as Obj) : ((err.body as Obj) ?? {});
    } catch {
      status = {};
    }
    const said = typeof status.message === 'string' ? status.message.slice(0, 500) : `HTTP ${err.code}`;
    const details = { cluster: { status: err.code, reason: status.reason ?? null } };
    if (err.code === 401)
      return policyViolation(`the cluster refused the credential (401 Unauthorized) ${what}`, details);
    if (err.code === 403)
      return policyViolation(`the credential's service account may not ${what} (403 Forbidden): ${said}`, details);
    if (err.code === 404) return notFound(`${what}: the cluster says ${said};`);
    if (err.code === 409) return new AppError('conflict', `the cluster refused to ${what}: ${said}`, details);
    if (err.code === 422 || err.code === 400)
      return policyViolation(
        `the cluster refused to ${what} (${err.code} ${status.reason ?? 'Invalid'}): ${said}`,
        details,
      );
    return new AppError('unavailable', `the cluster could not ${what} (HTTP ${err.code}); try again`, details);
  }
  if (err instanceof EgressRefused) return policyViolation(`the cluster's server is refused: ${err.message}`);
  if (err instanceof EgressError) return new AppError('unavailable', `the cluster did not answer: ${err.message}`);
  return new AppError('unavailable', `the cluster could not be reached to ${what}`);
}

/** The client's HTTP library: every request through the egress client, the token added here. */
function egressLibrary({ wrapHttpLibrary, ResponseContext }: K8s, access: ClusterAccess, allowPrivate: boolean) {
  return wrapHttpLibrary({
    async send(req: RequestContext): Promise<ResponseContext> {
      const headers: Record<string, string> = { ...req.getHeaders(), accept: 'application/json' };
      if (access.token) headers.authorization = `Bearer ${access.token}`;
      const body = req.getBody();
      const res = await egressFetch(allowPrivate, req.getUrl(), {
        method: req.getHttpMethod() as 'GET' | 'PATCH',
        headers,
        body: typeof body === 'string' ? body : undefined,
        signal: req.getSignal(),
        timeoutMs: TIMEOUT_MS,
        maxBytes: MAX_ANSWER_BYTES,
        oversize: 'refuse',
        ...(Object.values(access.tls).some(Boolean) ? { tls: access.tls } : {}),
      });
      return new ResponseContext(res.status, res.headers, {
        text: async () => res.text,
        // The body is read whole by the egress client (bounded); nothing is streamed.
        binary: async () => res.body,
      });
    },
  });
}

export interface Cluster {
  core: CoreV1Api;
  apps: AppsV1Api;
  server: string;
  lib: K8s;
}

/** A client for the access: its server checked by the egress rules (https unless AWP_ALLOW_PRIVATE_EGRESS). */
export async function clusterClient(access: ClusterAccess, allowPrivate: boolean): Promise<Cluster> {
  checkEgressUrl(access.server, { allowPrivate, requireHttps: true });
  const k = await k8s();
  const config = k.createConfiguration({
    baseServer: new k.ServerConfiguration(access.server.replace(/\/+$/, ''), {}),
    httpApi: egressLibrary(k, access, allowPrivate),
    authMethods: {},
  });
  return { core: new k.CoreV1Api(config), apps: new k.AppsV1Api(config), server: access.server, lib: k };
}

/** The cluster a run names by its credential reference, opened in the acting account's vault. */
export async function openCluster(
  deps: Pick<Deps, 'db' | 'config' | 'redis'>,
  accountId: string,
  credentialRef: string,
): Promise<Cluster> {
  const secret = await resolveReference(deps, { accountId, allowEnv: false, via: 'kubernetes.cluster' }, credentialRef);
  return clusterClient(await clusterAccess(secret), deps.config.AWP_ALLOW_PRIVATE_EGRESS);
}

/** Calls the API, mapping its refusal (`what`: the verb and object, for the message). */
export async function ask<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw clusterFailure(err, what);
  }
}

/** Patches a Deployment (strategic-merge or merge patch), as a server-side dry run when `dryRun`. */
export function patchDeployment(
  c: Cluster,
  namespace: string,
  name: string,
  body: Obj,
  opts: { dryRun: boolean; strategy: 'strategic' | 'merge' },
): Promise<Obj> {
  const { PatchStrategy, setHeaderOptions } = c.lib;
  const type = opts.strategy === 'strategic' ? PatchStrategy.StrategicMergePatch : PatchStrategy.MergePatch;
  return ask(
    `${opts.dryRun ? 'dry-run ' : ''}patch deployment ${namespace}/${name}`,
    async () =>
      (await c.apps.patchNamespacedDeployment(
        { name, namespace, body, fieldManager: 'awp', ...(opts.dryRun ? { dryRun: 'All' } : {}) },
        setHeaderOptions('Content-Type', type),
      )) as unknown as Obj,
  );
}
