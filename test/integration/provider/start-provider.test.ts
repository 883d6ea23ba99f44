import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { SIGNATURE_HEADER, verifySignature } from '../../../src/protocol/index.ts';
import { SANDBOX, startTestProvider, type TestProvider } from './helpers.ts';

let receiver: Server | undefined;
let provider: TestProvider | undefined;
afterEach(async () => {
  await provider?.close();
  receiver?.close();
});

it('startProvider with webhookUrl sends every category to that first endpoint, signed with its secret', async () => {
  const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  provider = await startTestProvider({
    webhookUrl: `http://127.0.0.1:${port}/webhooks`,
    webhookSecret: 'whsec_test',
  });
  expect(provider.secret).toBe('whsec_test');

  // A self-send: outbound and inbound events, both categories.
  expect((await provider.admin('/messages/inbound', { from: SANDBOX })).status).toBe(201);
  provider.settle();
  await provider.provider.dispatcher.idle();

  const mine = provider.events.filter((e) => e.envelope.party === SANDBOX);
  expect(received).toHaveLength(mine.length);
  for (const request of received) {
    const header = request.headers[SIGNATURE_HEADER];
    verifySignature({
      header: typeof header === 'string' ? header : undefined,
      body: request.body,
      secrets: ['whsec_test'],
      toleranceSeconds: 300,
      now: () => provider?.clock.now() ?? 0,
    });
  }
  expect(
    new Set(received.map((r) => (JSON.parse(r.body) as { transfer: string }).transfer)),
  ).toEqual(new Set(['inbound', 'outbound']));
});
