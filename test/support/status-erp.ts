/**
 * A test ERP for the erp-http status sink (src/sinks/erp-http.ts) that can be slow: a real
 * HTTP server on a free loopback port taking `POST /status-changes`, which for each notice
 * answers at once (201, or 200 for an Idempotency-Key it holds), never answers (the request
 * is held open), or answers 200 and then drips its body a byte at a time, for as long as the
 * test's `behave` says. An ERP that has not answered has taken nothing: a notice counts as
 * taken when it is answered in full. Free of vitest: bench/sink-slow-streams.ts loads it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { StatusNotice } from '../../src/consumer/store/status-notice.ts';
import { closeServer, listenOnLoopback } from './loopback-server.ts';

/** How the ERP treats one notice: answers it, never answers, or drips an endless answer. */
export type ErpBehaviour = 'answer' | 'hang' | 'drip';

/** A notice the ERP took, when it took it (its clock, Date.now()). */
export interface TakenNotice {
  notice: StatusNotice;
  at: number;
}

export interface StatusErp {
  url: string;
  /** Each notice taken, once per id, in the order taken. */
  taken(): TakenNotice[];
  /** Requests received per notice id, answered or not. */
  requests(id: string): number;
  /** Notices sent again once taken (an Idempotency-Key it held). */
  repeats(): number;
  /** Requests held unanswered (hanging or dripping) whose connection is still open. */
  unanswered(): number;
  /** Sets how each next request is treated; every notice is answered by default. */
  behave(decide: (notice: StatusNotice) => ErpBehaviour): void;
  close(): Promise<void>;
}

export async function startStatusErp(options: { dripEveryMs?: number } = {}): Promise<StatusErp> {
  const dripEveryMs = options.dripEveryMs ?? 200;
  const taken: TakenNotice[] = [];
  const held = new Set<string>();
  const requests = new Map<string, number>();
  let repeats = 0;
  let unanswered = 0;
  let decide: (notice: StatusNotice) => ErpBehaviour = () => 'answer';

  function answer(notice: StatusNotice, res: ServerResponse): void {
    if (held.has(notice.id)) {
      repeats += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"stored":false}');
      return;
    }
    held.add(notice.id);
    taken.push({ notice, at: Date.now() });
    res.writeHead(201, { 'content-type': 'application/json' }).end('{"stored":true}');
  }

  function drip(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => res.write('.'), dripEveryMs);
    res.on('close', () => clearInterval(timer));
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/status-changes') {
        res.writeHead(404).end();
        return;
      }
      const notice = JSON.parse(Buffer.concat(chunks).toString('utf8')) as StatusNotice;
      requests.set(notice.id, (requests.get(notice.id) ?? 0) + 1);
      const behaviour = decide(notice);
      if (behaviour === 'answer') return answer(notice, res);
      unanswered += 1;
      res.on('close', () => {
        unanswered -= 1;
      });
      // 'hang': nothing is ever sent; the client gives up.
      if (behaviour === 'drip') drip(res);
    });
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    taken: () => [...taken],
    requests: (id) => requests.get(id) ?? 0,
    repeats: () => repeats,
    unanswered: () => unanswered,
    behave(next) {
      decide = next;
    },
    close: () => closeServer(server),
  };
}
