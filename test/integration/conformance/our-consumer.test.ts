/** The conformance runner against this project's consumer: every duty holds. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceReport } from '../../../src/conformance/report.ts';
import { DUTY_IDS, runConformance } from '../../../src/conformance/runner.ts';
import { parseCredentialSpec, type WebhookCredential } from '../../../src/protocol/index.ts';
import {
  type ConsumerUnderTest,
  CREDENTIAL,
  REJECTED_INVOICE_NO,
  startConsumerUnderTest,
} from '../../support/conformance.ts';
import { freePort } from '../../support/free-port.ts';

let consumer: ConsumerUnderTest;
let report: ConformanceReport;

beforeAll(async () => {
  const port = await freePort();
  consumer = await startConsumerUnderTest('ours', port);
  report = await runConformance(
    {
      url: consumer.url,
      secret: consumer.secret,
      port,
      host: '127.0.0.1',
      apiToken: 'sandbox-token',
      credential: parseCredentialSpec(CREDENTIAL) as WebhookCredential,
      rejectInvoiceNo: REJECTED_INVOICE_NO,
      stateUrl: consumer.stateUrl,
      stateToken: consumer.stateToken,
      timeoutMs: 10_000,
      burst: 50,
      json: false,
    },
    { reconcile: consumer.reconcile },
  );
}, 60_000);

afterAll(async () => {
  await consumer?.stop();
});

describe('conformance of our consumer', () => {
  it('every duty is checked and holds', () => {
    const failed = report.duties.filter((d) => d.result !== 'pass');
    expect(failed.map((d) => [d.id, d.result, d.evidence])).toEqual([]);
    expect(report.duties.map((d) => d.id)).toEqual(DUTY_IDS);
    expect(report.passed).toBe(true);
  });

  it('a lost reply to mark-as-delivered: the deliveryNotified again changes nothing, the message ends delivered', () => {
    const evidence = duty('import.lost-acknowledgement');
    expect(evidence).toMatch(/again, after the 503 -> 204/);
    expect(evidence).toMatch(/mark-as-delivered 503; POST \S+ 204/);
    expect(evidence).toContain('the message at the service: delivered');
  });

  it('parked and retried, the two changes newest first: the view ends at pendingdelivery', () => {
    expect(duty('status.order')).toContain(
      "outbound delivery status pendingdelivery; the service's: pendingdelivery",
    );
  });
});

const duty = (id: string) => report.duties.find((d) => d.id === id)?.evidence.join('\n') ?? '';
