import { once } from 'node:events';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createAdmission } from '../../../../../src/consumer/http/admission.ts';
import { admitBody, RETRY_AFTER_SECONDS } from '../../../../../src/consumer/http/webhook/admit.ts';
import { Rejection } from '../../../../../src/consumer/http/webhook/rejection.ts';

describe('admission of a webhook body', () => {
  it('hands out a budget while the declared bytes fit; what it takes is freed on release', () => {
    const admission = createAdmission({ maxConnections: 10, maxInflightBytes: 100 });
    const budget = admitBody(admission, 60);
    if (budget instanceof Rejection) throw new Error('refused');
    expect(budget.take(60)).toBe(true);
    expect(admission.stats().inflightBytes).toBe(60);
    budget.release();
    expect(admission.stats().inflightBytes).toBe(0);
  });

  it('refuses bytes that do not fit with 503 and Retry-After, keeping the connection', () => {
    const admission = createAdmission({ maxConnections: 10, maxInflightBytes: 100 });
    (admitBody(admission, 60) as { take(bytes: number): boolean }).take(60);
    const refused = admitBody(admission, 60);
    expect(refused).toBeInstanceOf(Rejection);
    const rejection = refused as Rejection;
    expect(rejection.outcome).toBe('over_capacity');
    expect(rejection.problem.status).toBe(503);
    expect(rejection.problem.detail).toContain('WEBHOOK_MAX_INFLIGHT_BYTES');
    expect(rejection.headers).toEqual({ 'Retry-After': String(RETRY_AFTER_SECONDS) });
  });

  it('over the connection limit, refuses with 503 and closes that connection after the answer', async () => {
    const admission = createAdmission({ maxConnections: 2, maxInflightBytes: 100 });
    const server = createServer();
    admission.watch(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const sockets = [1, 2, 3].map(() => connect(port, '127.0.0.1'));
    try {
      await expect.poll(() => admission.stats().connections).toBe(3);
      const refused = admitBody(admission, 10) as Rejection;
      expect(refused.outcome).toBe('over_capacity');
      expect(refused.problem.detail).toContain('WEBHOOK_MAX_CONNECTIONS');
      expect(refused.headers).toEqual({ 'Retry-After': '1', Connection: 'close' });
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });
});
