#!/usr/bin/env node
/**
 * `npm run erp-standin`: the ERP stand-in (erp-standin.ts) as a process, for trying the
 * example HTTP importer by hand (docs/forking.md): set ERP_BASE_URL and ERP_TOKEN as printed;
 * for the example status sink (src/sinks/erp-http.ts), SINK_ERP_URL and SINK_ERP_TOKEN. With
 * ERP_STANDIN_CONSUMER_URL set, POST /outgoing-invoices sends an invoice through the consumer's
 * submission outbox (docs/submissions.md).
 *
 *   ERP_STANDIN_PORT               @default 4100
 *   ERP_STANDIN_HOST               address to listen on @default 127.0.0.1
 *   ERP_STANDIN_ALLOWED_HOSTS      comma-separated host names it answers to besides loopback
 *                                  names and IP addresses (any other Host is 403)
 *   ERP_STANDIN_TOKEN              @default generated for each start, and printed
 *   ERP_STANDIN_REJECT_INVOICE_NOS comma-separated invoice numbers it refuses (422)
 *   ERP_STANDIN_CONSUMER_URL       the consumer's operations URL, e.g. http://127.0.0.1:3000
 *   ERP_STANDIN_CONSUMER_TOKEN     the consumer's ADMIN_SUBMIT_TOKEN (or its ADMIN_TOKEN)
 */
import { startErpStandin } from './erp-standin.ts';

const env = process.env;
const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
const port = Number(env.ERP_STANDIN_PORT ?? 4100);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(
    `ERP_STANDIN_PORT must be a port number (got ${JSON.stringify(env.ERP_STANDIN_PORT)})`,
  );
  process.exit(2);
}
const erp = await startErpStandin({
  port,
  ...(env.ERP_STANDIN_HOST ? { host: env.ERP_STANDIN_HOST } : {}),
  allowedHosts: list(env.ERP_STANDIN_ALLOWED_HOSTS),
  ...(env.ERP_STANDIN_TOKEN ? { token: env.ERP_STANDIN_TOKEN } : {}),
  rejectInvoiceNos: list(env.ERP_STANDIN_REJECT_INVOICE_NOS),
  ...(env.ERP_STANDIN_CONSUMER_URL ? { consumerUrl: env.ERP_STANDIN_CONSUMER_URL } : {}),
  ...(env.ERP_STANDIN_CONSUMER_TOKEN ? { consumerToken: env.ERP_STANDIN_CONSUMER_TOKEN } : {}),
}).catch((error: NodeJS.ErrnoException) => {
  console.error(
    error.code === 'EADDRINUSE'
      ? `ERP_STANDIN_PORT ${port} is taken; set ERP_STANDIN_PORT to a free port`
      : String(error),
  );
  process.exit(2);
});
console.log(`ERP stand-in listening on ${erp.url}
  ERP_BASE_URL=${erp.url}
  ERP_TOKEN=${erp.token}
  SINK_MODULE=erp-http SINK_ERP_URL=${erp.url} SINK_ERP_TOKEN=${erp.token}
  token: ${erp.tokenGenerated ? 'generated for this start (set ERP_STANDIN_TOKEN to choose one)' : 'ERP_STANDIN_TOKEN'}
  answers programs, not web pages: Host a loopback name, an IP address or ERP_STANDIN_ALLOWED_HOSTS; no foreign Origin`);
if (env.ERP_STANDIN_CONSUMER_URL) {
  console.log(`  POST ${erp.url}/outgoing-invoices sends through ${env.ERP_STANDIN_CONSUMER_URL}`);
}
let last = 0;
let lastChange = 0;
/** The notices of outgoing invoices printed already, by id: they may arrive in any order. */
const printed = new Set<string>();
setInterval(() => {
  const booked = erp.documents();
  for (const document of booked.slice(last)) {
    console.log(`booked ${document.documentNo} for message ${document.externalId}`);
  }
  last = booked.length;
  const changes = erp.statusChanges();
  for (const { notice } of changes.slice(lastChange)) {
    // An outgoing invoice's outcome is printed with that invoice, below.
    if (notice.kind === 'submission') continue;
    console.log(
      `status change of message ${String(notice.messageId)}: ${String(notice.kind)} ${String(notice.formerValue)} -> ${String(notice.newValue)}`,
    );
  }
  lastChange = changes.length;
  for (const invoice of erp.outgoingInvoices()) {
    const notices = [
      ...(invoice.submission === null ? [] : [invoice.submission]),
      ...invoice.statusChanges.map((change) => change.notice),
    ];
    for (const notice of notices.filter((n) => !printed.has(String(n.id)))) {
      printed.add(String(notice.id));
      console.log(
        notice.kind === 'submission'
          ? `outgoing invoice ${invoice.invoiceNo}: ${String(notice.newValue)}, message ${String(notice.messageId)}`
          : `outgoing invoice ${invoice.invoiceNo}: ${String(notice.kind)} ${String(notice.formerValue)} -> ${String(notice.newValue)}`,
      );
    }
  }
}, 500).unref();
const stop = () => void erp.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
