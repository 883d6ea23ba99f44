/**
 * Baseline (b): express 5 with express.raw reading the body, answering 204. The consumer's own
 * stack is express, so its ratio to this one shows what verification and storage cost.
 */
import { createServer } from 'node:http';
import express from 'express';
import { closeServer, listenOnLoopback } from '../test/support/loopback-server.ts';
import { serveControl } from './server-control.ts';

const app = express();
app.disable('x-powered-by');
app.post('/webhooks', express.raw({ type: () => true, limit: '1mb' }), (_req, res) => {
  res.status(204).end();
});
const server = createServer(app);
const url = await listenOnLoopback(server);
serveControl(`${url}/webhooks`, () => closeServer(server));
