/** What the submission outbox's tests share (docs/submissions.md). */

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
