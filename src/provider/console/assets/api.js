// @ts-check
/**
 * The console's only way to the sandbox: the admin API, with the admin token when the sandbox
 * has one (PROVIDER_ADMIN_TOKEN). The token stays in this tab's sessionStorage and travels in
 * the Authorization header, never in a URL or a cookie, so no other site can act with it.
 */

const TOKEN_KEY = 'sandbox-admin-token';

/** The admin API refused a call; `problem` is its RFC 9457 body. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {{ title?: string, detail?: string, violations?: string[], field?: string }} problem
   */
  constructor(status, problem) {
    super(problem.detail ?? problem.title ?? `status ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
  }

  /** Every problem the sandbox found with the input, or the detail. */
  get violations() {
    return this.problem.violations ?? [];
  }
}

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY) ?? undefined,
  /** @param {string} value */
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** Called when the admin API answers 401: the console asks for the token again. */
/** @type {() => void} */
let onUnauthorized = () => {};
/** @param {() => void} handler */
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

/**
 * @param {'GET' | 'POST' | 'PUT' | 'DELETE'} method
 * @param {string} path under /admin
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
async function call(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  const stored = token.get();
  if (stored !== undefined) headers.authorization = `Bearer ${stored}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/admin${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const parsed = text === '' ? undefined : JSON.parse(text);
  if (res.status === 401) onUnauthorized();
  if (!res.ok) throw new ApiError(res.status, parsed ?? {});
  return parsed;
}

export const api = {
  /** @param {string} path */
  get: (path) => call('GET', path),
  /** @param {string} path @param {unknown} [body] */
  post: (path, body = {}) => call('POST', path, body),
  /** @param {string} path @param {unknown} body */
  put: (path, body) => call('PUT', path, body),
  /** @param {string} path */
  delete: (path) => call('DELETE', path),
};

/** The sandbox participant the console manages, from the page's meta tags. */
export const party = {
  id: document.querySelector('meta[name="sandbox-party"]')?.getAttribute('content') ?? '',
  name: document.querySelector('meta[name="sandbox-party-name"]')?.getAttribute('content') ?? '',
  /** The dispatcher's routes of this participant. */
  get path() {
    return `/participants/${encodeURIComponent(this.id)}`;
  },
};

export const adminTokenRequired =
  document.querySelector('meta[name="admin-token"]')?.getAttribute('content') === 'required';

/**
 * The message of an error for the user: the sandbox's own words when it refused.
 * @param {unknown} error
 */
export function explain(error) {
  if (error instanceof ApiError) return error.message;
  return `The sandbox did not answer (${error instanceof Error ? error.message : String(error)}). Is it still running?`;
}
