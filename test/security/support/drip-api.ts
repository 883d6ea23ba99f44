/**
 * A hostile messaging API (issue 26, point 2): a real HTTP server on a free port in front of
 * the provider simulator. It forwards every call, except that an answer `drip` picks gets its
 * headers (Content-Length included) at once and then its body one byte at a time, each byte
 * well within the consumer's per-wait timeout (API_TIMEOUT_MS): no timeout of a single wait
 * ever fires, so only an overall deadline or a minimum rate ends such an answer.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { request } from 'undici';
import { closeServer, listenOnLoopback } from '../../support/loopback-server.ts';

export interface DrippedAnswer {
  path: string;
  startedAt: number;
  /** When the consumer closed the connection or the last byte went; undefined while it drips. */
  endedAt: number | undefined;
  bytesSent: number;
  size: number;
}

export interface DripApi {
  url: string;
  /** Every answer dripped so far, in the order they started. */
  dripped: DrippedAnswer[];
  /** Answers being dripped right now. */
  active(): number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host']);

export async function startDripApi(options: {
  /** The messaging API calls are forwarded to (read at each call). */
  target: () => string;
  /** Whether to drip this answer, by its path (and query) and its body. */
  drip: (path: string, body: Buffer) => boolean;
  /** The pause between two bytes of a dripped body. */
  byteEveryMs: number;
}): Promise<DripApi> {
  const dripped: DrippedAnswer[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer(async (incoming, res) => {
    try {
      const body = await readAll(incoming);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers[name] = value;
      }
      const path = incoming.url ?? '/';
      const answer = await request(`${options.target()}${path}`, {
        method: (incoming.method ?? 'GET') as 'GET',
        headers,
        ...(body.length === 0 ? {} : { body }),
      });
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      const answerHeaders = Object.fromEntries(
        Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
      );
      if (!options.drip(path, bytes)) {
        res.writeHead(answer.statusCode, answerHeaders).end(bytes);
        return;
      }
      const record: DrippedAnswer = {
        path,
        startedAt: Date.now(),
        endedAt: undefined,
        bytesSent: 0,
        size: bytes.length,
      };
      dripped.push(record);
      res.writeHead(answer.statusCode, { ...answerHeaders, 'content-length': bytes.length });
      res.flushHeaders();
      const timer = setInterval(() => {
        if (record.bytesSent >= bytes.length) {
          res.end();
          return;
        }
        res.write(bytes.subarray(record.bytesSent, record.bytesSent + 1));
        record.bytesSent++;
      }, options.byteEveryMs);
      timers.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
        record.endedAt = Date.now();
      });
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
  return {
    url: await listenOnLoopback(server),
    dripped,
    active: () => dripped.filter((d) => d.endedAt === undefined).length,
    close: () => {
      for (const timer of timers) clearInterval(timer);
      return closeServer(server);
    },
  };
}

async function readAll(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
