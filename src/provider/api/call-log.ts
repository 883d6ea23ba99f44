/**
 * A record of every messaging API call, so a consumer test can assert on what the consumer
 * did ("mark-as-failed was never called", "the core document was fetched once").
 */
import type { RequestHandler } from 'express';
import type { Clock } from '../clock.ts';

export interface ApiCall {
  method: string;
  /** Path without the query string. */
  path: string;
  /** From the path, the messageId query parameter, or the message a submit created. */
  messageId?: string;
  /** The answer's status code; null while the call has not been answered (a hang). */
  status: number | null;
  /** ISO 8601, by the provider clock, when the call arrived. */
  at: string;
}

export interface CallLog {
  middleware(): RequestHandler;
  list(filter?: { messageId?: string | undefined }): ApiCall[];
  clear(): void;
}

const MESSAGE_PATH = /^\/messages\/([^/]+)/;

export function createCallLog(clock: Clock): CallLog {
  let calls: ApiCall[] = [];
  return {
    middleware() {
      return (req, res, next) => {
        const call: ApiCall = {
          method: req.method,
          path: req.path,
          status: null,
          at: new Date(clock.now()).toISOString(),
        };
        const fromPath = MESSAGE_PATH.exec(req.path)?.[1];
        const fromQuery = req.query.messageId;
        const messageId = fromPath ?? (typeof fromQuery === 'string' ? fromQuery : undefined);
        if (messageId !== undefined) call.messageId = decodeURIComponent(messageId);
        calls.push(call);
        res.on('finish', () => {
          call.status = res.statusCode;
          const created = res.locals.messageId;
          if (call.messageId === undefined && typeof created === 'string') call.messageId = created;
        });
        next();
      };
    },
    list(filter = {}) {
      return calls
        .filter((c) => filter.messageId === undefined || c.messageId === filter.messageId)
        .map((c) => ({ ...c }));
    },
    clear() {
      calls = [];
    },
  };
}
