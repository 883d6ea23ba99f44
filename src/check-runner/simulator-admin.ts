/**
 * One call to the embedded simulator's admin API (POST /admin/messages/inbound, a payment, a
 * participant's settings), as the checking commands make them: JSON in, JSON out, and an answer
 * of 300 or more thrown as the error `refused` makes of it, so each command words it its way.
 */
import { request } from 'undici';

export type AdminMethod = 'GET' | 'POST' | 'PUT';

export async function callSimulatorAdmin<T>(
  baseUrl: string,
  call: { method: AdminMethod; path: string; body?: unknown },
  refused: (status: number, text: string) => Error,
): Promise<T> {
  const res = await request(`${baseUrl}/admin${call.path}`, {
    method: call.method,
    headers: { 'content-type': 'application/json' },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw refused(res.statusCode, text);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}
