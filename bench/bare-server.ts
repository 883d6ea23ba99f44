/**
 * The baseline: bare node:http reading the whole body and answering 204, with no framework,
 * verification or storage. Runs as a child process of the runner (see server-process.ts).
 */
import { createServer } from 'node:http';
import { closeServer, listenOnLoopback } from '../test/support/loopback-server.ts';
import { serveControl } from './server-control.ts';

const server = createServer((req, res) => {
  // Collect the body as the consumer's read-body.ts does, so the baseline does the same reads.
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    Buffer.concat(chunks);
    res.statusCode = 204;
    res.end();
  });
});
serveControl(await listenOnLoopback(server), () => closeServer(server));
