#!/usr/bin/env node
/**
 * `npm run erp-standin`: the ERP stand-in (erp-standin.ts) as a process, for trying the
 * example HTTP importer by hand (docs/forking.md): set ERP_BASE_URL and ERP_TOKEN as printed;
 * for the example status sink (src/sinks/erp-http.ts), SINK_ERP_URL and SINK_ERP_TOKEN.
 *
 *   ERP_STANDIN_PORT               @default 4100
 *   ERP_STANDIN_TOKEN              @default erp-standin-token
 *   ERP_STANDIN_REJECT_INVOICE_NOS comma-separated invoice numbers it refuses (422)
 */
import { startErpStandin } from './erp-standin.ts';

const env = process.env;
const port = Number(env.ERP_STANDIN_PORT ?? 4100);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(
    `ERP_STANDIN_PORT must be a port number (got ${JSON.stringify(env.ERP_STANDIN_PORT)})`,
  );
  process.exit(2);
}
const erp = await startErpStandin({
  port,
  ...(env.ERP_STANDIN_TOKEN ? { token: env.ERP_STANDIN_TOKEN } : {}),
  rejectInvoiceNos: (env.ERP_STANDIN_REJECT_INVOICE_NOS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== ''),
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
  SINK_MODULE=erp-http SINK_ERP_URL=${erp.url} SINK_ERP_TOKEN=${erp.token}`);
let last = 0;
let lastChange = 0;
setInterval(() => {
  const booked = erp.documents();
  for (const document of booked.slice(last)) {
    console.log(`booked ${document.documentNo} for message ${document.externalId}`);
  }
  last = booked.length;
  const changes = erp.statusChanges();
  for (const { notice } of changes.slice(lastChange)) {
    console.log(
      `status change of message ${String(notice.messageId)}: ${String(notice.kind)} ${String(notice.formerValue)} -> ${String(notice.newValue)}`,
    );
  }
  lastChange = changes.length;
}, 500).unref();
const stop = () => void erp.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
