/** Small HTTP and waiting helpers for the container tests, which talk to mapped ports. */

/** JSON from `url`, failing with the answer's status and start when it is not 2xx. */
export async function json<T>(
  url: string,
  init: { method?: string; token?: string; body?: unknown } = {},
): Promise<T> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token === undefined ? {} : { authorization: `Bearer ${init.token}` }),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  if (!res.ok)
    throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Resolves once `condition` holds; fails naming `what` after `ms`. Errors count as "not yet". */
export async function waitFor(
  what: string,
  condition: () => Promise<boolean> | boolean,
  ms = 30_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      if (await condition()) return;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not within ${ms} ms${last === undefined ? '' : ` (${last})`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
