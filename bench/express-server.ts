/**
 * Baseline (b): express 5 with express.raw reading the body, answering 204. The consumer's own
 * stack is express, so its ratio to this one shows what verification and storage cost.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { serveControl } from './server-control.ts';

const app = express();
app.disable('x-powered-by');
app.post('/webhooks', express.raw({ type: () => true, limit: '1mb' }), (_req, res) => {
  res.status(204).end();
});
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as AddressInfo;
serveControl(`http://127.0.0.1:${port}/webhooks`, async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
