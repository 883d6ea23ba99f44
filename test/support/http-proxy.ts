/**
 * A small HTTP proxy for tests that put something between two real servers: it reads each
 * request whole, lets `handle` look at it (and act, or change where it goes), forwards it and
 * sends the answer back.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { request } from 'undici';
import { closeServer, listenOnLoopback } from './loopback-server.ts';

export interface ProxiedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxiedAnswer {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface ProxyOptions {
  /** Base URL requests go to (path and query are kept). */
  target: string | ((req: ProxiedRequest) => string);
  /** Called before forwarding; may change the request, or answer it (a status) instead. */
  before?: (req: ProxiedRequest) => Promise<number | undefined> | number | undefined;
  /** Called with the answer before it is passed back. */
  after?: (req: ProxiedRequest, status: number, answer: ProxiedAnswer) => Promise<void> | void;
}

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'host',
  'content-length',
]);

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const server = createServer(async (incoming, res) => {
    try {
      const req = await read(incoming);
      const answered = await options.before?.(req);
      if (answered !== undefined) {
        res.writeHead(answered).end();
        return;
      }
      const base = typeof options.target === 'string' ? options.target : options.target(req);
      const answer = await request(`${base}${req.url}`, {
        method: req.method as 'POST',
        headers: req.headers,
        ...(req.body.length === 0 ? {} : { body: req.body }),
      });
      const body = Buffer.from(await answer.body.arrayBuffer());
      await options.after?.(req, answer.statusCode, { headers: answer.headers, body });
      const headers = Object.fromEntries(
        Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
      );
      res.writeHead(answer.statusCode, headers).end(body);
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
  return { url: await listenOnLoopback(server), close: () => closeServer(server) };
}

async function read(incoming: IncomingMessage): Promise<ProxiedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  return {
    method: incoming.method ?? 'GET',
    url: incoming.url ?? '/',
    headers,
    body: Buffer.concat(chunks),
  };
}
