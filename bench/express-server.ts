/**
 * Baseline (b): express 5 with express.raw reading the body, answering 204. The consumer's own
 * stack is express, so its ratio to this one shows what verification and storage cost.
 */
import express from 'express';
import { serveListening } from './server-control.ts';

const app = express();
app.disable('x-powered-by');
app.post('/webhooks', express.raw({ type: () => true, limit: '1mb' }), (_req, res) => {
  res.status(204).end();
});
const server = app.listen(0, '127.0.0.1');
await serveListening(server, '/webhooks');
