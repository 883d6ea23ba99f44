/**
 * A shutdown while a webhook is in flight (a rolling deploy under traffic): the request is
 * answered, its keep-alive connection closed once it is idle, and close() resolves without
 * cutting anything. The connection became idle only after the one closeIdleConnections() of
 * close() had run, so it stayed open for its keep-alive (65 s) and every such shutdown waited
 * out SHUTDOWN_TIMEOUT_MS, then was reported forced (`npm start` exits 1 on that).
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { startTestConsumer, TEST_SECRET, type TestConsumer } from '../../support/consumer.ts';
import { eventually } from '../../support/sandbox.ts';
import { buildEnvelope, signedRequest } from '../../support/webhooks.ts';

let consumer: TestConsumer | undefined;
afterEach(async () => {
  await consumer?.close();
  consumer = undefined;
});

it('answers a webhook in flight at close, closes its connection and stops unforced', async () => {
  // Longer than the test's timeout (20 s, vitest.config.ts): a close that waits for the deadline
  // fails the test.
  consumer = await startTestConsumer({ SHUTDOWN_TIMEOUT_MS: '60000' });
  const { body, headers } = signedRequest(buildEnvelope(), { secrets: [TEST_SECRET] });
  const url = new URL(consumer.webhookUrl);
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  const ended = once(socket, 'close');
  const head = [
    `POST ${url.pathname} HTTP/1.1`,
    `host: ${url.host}`,
    'connection: keep-alive',
    // The server's "100 Continue" says the request is in flight: headers parsed, body awaited.
    'expect: 100-continue',
    `content-length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n');
  socket.write(`${head}\r\n\r\n`);
  await eventually(
    async () => received.includes('100 Continue'),
    'the server to wait for the body',
  );

  const closing = consumer.close();
  socket.write(body);
  await eventually(
    async () => / 204 /.test(received.slice(received.indexOf('100 Continue') + 12)),
    'the answer',
  );
  await ended;
  expect(await closing).toEqual({ forced: false });
});
