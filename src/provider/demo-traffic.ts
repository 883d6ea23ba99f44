/**
 * Demo traffic for a sandbox someone is watching (`npm run dev`, or `npm run provider` with
 * DEMO_INTERVAL_SECONDS, as the compose deployment runs it): the demo supplier sends the
 * sandbox participant an invoice at once and then every interval, and registers its payment a
 * few seconds later, once the consumer has had time to acknowledge it. It goes through the
 * admin API, exactly as a user's curl would.
 */
import { DEMO_SUPPLIER } from './model/index.ts';

export interface DemoTrafficOptions {
  /** The simulator's base URL; the admin API is at `${url}/admin`. */
  url: string;
  /** PROVIDER_ADMIN_TOKEN, when the admin API needs one. @default undefined */
  adminToken?: string | undefined;
  /** Time between two invoices. */
  intervalMs: number;
  /** Time from an invoice to its payment. @default 3000 */
  paymentDelayMs?: number;
  /** One line per invoice, payment or failure. */
  log: (line: string) => void;
}

export function startDemoTraffic(options: DemoTrafficOptions): { stop(): void } {
  const timers = new Set<NodeJS.Timeout>();
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${options.url}/admin${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.adminToken === undefined
          ? {}
          : { authorization: `Bearer ${options.adminToken}` }),
      },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { messageId: string };
  };
  const invoice = async () => {
    try {
      const { messageId } = await admin('/messages/inbound', {});
      options.log(`demo: invoice ${messageId} sent by the demo supplier`);
      const payment = setTimeout(() => {
        timers.delete(payment);
        admin(`/messages/${messageId}/payment`, {
          paidAmount: '1250.00',
          paymentDate: new Date().toISOString().slice(0, 10),
          actor: DEMO_SUPPLIER.identifier,
        }).then(
          () => options.log(`demo: payment registered for ${messageId}`),
          (error: unknown) => options.log(`demo: payment failed: ${String(error)}`),
        );
      }, options.paymentDelayMs ?? 3000);
      timers.add(payment);
    } catch (error) {
      options.log(`demo: could not send an invoice: ${String(error)}`);
    }
  };
  void invoice();
  const interval = setInterval(invoice, options.intervalMs);
  return {
    stop() {
      clearInterval(interval);
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
