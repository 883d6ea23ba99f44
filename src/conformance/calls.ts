/**
 * What the consumer did at the messaging API, read from the simulator's call log: the
 * evidence of every flow duty, and the waits that let a duty judge once the consumer acted.
 */
import type { ApiCall } from '../provider/api/call-log.ts';
import { describeCall, type Harness } from './harness.ts';

export const isCore = (c: ApiCall) => c.method === 'GET' && c.path.endsWith('/documents/core');
export const isTransaction = (c: ApiCall) =>
  c.method === 'GET' && c.path.startsWith('/transactions/');
export const isDelivered = (c: ApiCall) =>
  c.method === 'POST' && c.path.endsWith('/mark-as-delivered');
export const isFailed = (c: ApiCall) => c.method === 'POST' && c.path.endsWith('/mark-as-failed');
export const isFetch = (c: ApiCall) => isCore(c) || isTransaction(c);

export const callsLine = (calls: ApiCall[]) =>
  `API calls: ${calls.length === 0 ? 'none' : calls.map(describeCall).join('; ')}`;

/** Waits until the consumer acknowledged the message either way; its calls then. */
export async function acknowledged(h: Harness, messageId: string): Promise<ApiCall[]> {
  await h.until(() =>
    h.calls(messageId).some((c) => (isDelivered(c) || isFailed(c)) && c.status !== null),
  );
  return h.calls(messageId);
}

/**
 * Fetches of the core document and the JSON answered before mark-as-delivered arrived, and
 * nothing marked failed: the order a consumer that acknowledges only what it stored shows.
 */
export function importedThenAcknowledged(calls: ApiCall[]): boolean {
  const ack = calls.find((c) => isDelivered(c) && c.status === 204);
  if (ack === undefined || calls.some(isFailed)) return false;
  const before = (c: ApiCall) =>
    c.status === 200 && c.answeredAt !== undefined && c.answeredAt <= ack.at;
  return (
    calls.some((c) => isCore(c) && before(c)) && calls.some((c) => isTransaction(c) && before(c))
  );
}
