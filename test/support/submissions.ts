/** What the submission outbox's tests share (docs/submissions.md). */
import { request } from 'undici';
import type { StatusSink } from '../../src/consumer/sink/define-sink.ts';
import type { StatusNotice } from '../../src/consumer/store/status-notice.ts';
import type { Sandbox } from './sandbox.ts';

/** The view GET /admin/submissions[/:invoiceNo] answers, as far as the tests read it. */
export interface SubmissionView {
  invoiceNo: string;
  state: string;
  messageId: string | null;
  resolvedBy: string | null;
  attempts: number;
  lastError: string | null;
  /** Only GET /admin/submissions/:invoiceNo and POST carry it. */
  message?: { deliveryStatus: string | null; validationStatus: string | null } | null;
}

/** The simulator's example invoice (its console's), numbered `invoiceNo`. */
export async function exampleInvoice(providerUrl: string, invoiceNo: string) {
  const res = await fetch(`${providerUrl}/console/example-invoice.json`);
  const body = (await res.json()) as { invoice: Record<string, unknown> };
  body.invoice.invoiceNo = invoiceNo;
  return body;
}

/** A status sink that keeps every notice it is handed, in order (`taken`). */
export function recordingSink(): { sink: StatusSink; taken: StatusNotice[] } {
  const taken: StatusNotice[] = [];
  const sink: StatusSink = {
    async deliver(notice) {
      taken.push(notice);
    },
  };
  return { sink, taken };
}

/** POST /admin/submissions with `token`: its status and the view it answered. */
export async function postSubmission(
  consumerUrl: string,
  body: unknown,
  token: string,
): Promise<{ status: number; body: SubmissionView }> {
  const res = await request(`${consumerUrl}/admin/submissions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as SubmissionView };
}

/** The next `count` submits of the sandbox's messaging API meet fault `mode` ('lose-reply', ...). */
export const submitFault = (s: Sandbox, mode: string, count: number) =>
  s.admin('POST', '/faults', { mode, count, pathPrefix: '/transactions/submit-invoice' });
