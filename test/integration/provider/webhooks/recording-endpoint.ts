/**
 * A real HTTP endpoint on a free port that records every request byte for byte and answers as
 * the test says, so tests see exactly what a consumer would see on the wire.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long (real time) before answering. */
  delayMs?: number;
}

export interface RecordingEndpoint {
  url: string;
  requests: ReceivedRequest[];
  /** Changes the answer for the following requests. */
  answer(next: Answer | ((request: ReceivedRequest) => Answer)): void;
  close(): Promise<void>;
}

export async function startRecordingEndpoint(
  initial: Answer = { status: 204 },
): Promise<RecordingEndpoint> {
  const requests: ReceivedRequest[] = [];
  let respond: (request: ReceivedRequest) => Answer = () => initial;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(received);
      const answer = respond(received);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      };
      if (answer.delayMs === undefined) send();
      else setTimeout(send, answer.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    requests,
    answer(next) {
      respond = typeof next === 'function' ? next : () => next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL nobody listens on: a server is bound to get a free port, then closed. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/webhooks`;
}
