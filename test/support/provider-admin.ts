/**
 * The simulator's admin API as tests that run it beside real processes call it: JSON in, JSON
 * out (undefined for an empty answer). No token: these simulators run without one, on loopback.
 */
import { request } from 'undici';

/** The fields of GET /admin/messages/:mid that tests read. */
export interface AdminMessage {
  messageId: string;
  sides: { inbound: { status: string } };
}

export function providerAdmin(baseUrl: () => string) {
  return async <T = AdminMessage>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<T> => {
    const res = await request(`${baseUrl()}/admin${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.body.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };
}
