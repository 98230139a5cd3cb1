/** The dashboard speaks the public JSON API, signed in by the session cookie; mutating calls carry the CSRF token. */
let csrfToken = '';

export function setCsrf(token: string): void {
  csrfToken = token;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The envelope's `error` (conflict, selfApproval, …) and `details`, for pages that explain a refusal. */
    readonly code = '',
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    if (res.status === 401 && path !== '/v1/session') window.dispatchEvent(new Event('awp:signed-out'));
    throw new ApiError(res.status, data.message ?? `HTTP ${res.status}`, data.error ?? '', data.details ?? {});
  }
  return data as T;
}

/** The member's time zone: the browser's, named beside every time the dashboard shows. */
export const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
// dateStyle/timeStyle cannot be combined with timeZoneName, hence the fields one by one.
const TIME = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});

export const when = (iso: string | null | undefined) => (iso ? TIME.format(new Date(iso)) : '—');

/** An amount of money as the API gives it (`{ amount, currency }`), in the browser's locale. */
export function money(m: { amount: number; currency: string } | null | undefined): string {
  if (!m) return '—';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: m.currency }).format(m.amount);
  } catch {
    return `${m.amount} ${m.currency}`;
  }
}

/** A query string of the filters that are set (empty values dropped), with its leading `?` or nothing. */
export function query(filters: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams(
    Object.entries(filters)
      .filter(([, v]) => v !== '' && v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  ).toString();
  return q ? `?${q}` : '';
}

/**
 * An async function as an event handler. The DOM drops what a handler returns, so a failure the function did not
 * catch itself would be an unhandled rejection: it is logged here instead.
 */
export function asyncHandler<A extends unknown[]>(fn: (...args: A) => Promise<unknown>): (...args: A) => void {
  return (...args) => void fn(...args).catch((e: unknown) => console.error(e));
}

/** Runs a page's action: clears the page's error, reloads what the page shows after it, or shows why it failed. */
export function actionRunner(setError: (message: string) => void, reload: () => Promise<unknown>) {
  return asyncHandler(async (fn: () => Promise<unknown>) => {
    setError('');
    try {
      await fn();
      await reload();
    } catch (e) {
      setError((e as Error).message);
    }
  });
}
