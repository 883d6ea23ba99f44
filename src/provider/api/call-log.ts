/**
 * A record of the messaging API calls, so a consumer test can assert on what the consumer
 * did ("mark-as-failed was never called", "the core document was fetched once").
 *
 * Only authenticated calls are recorded (the middleware sits after the bearer check), and only
 * the last `capacity` of them: a simulator left running, or flooded by anyone who can reach it,
 * must not grow without bound.
 */
import type { RequestHandler } from 'express';
import type { Clock } from '../clock.ts';

export interface ApiCall {
  method: string;
  /** Path without the query string. */
  path: string;
  /** From the path, the messageId query parameter, or the message a submit created. */
  messageId?: string;
  /**
   * The answer's status code; null while the call has not been answered (a hang), or when it
   * never was (a reset, a lost reply).
   */
  status: number | null;
  /** ISO 8601, by the provider clock, when the call arrived. */
  at: string;
  /** ISO 8601, by the provider clock, when the answer was sent; absent while unanswered. */
  answeredAt?: string;
}

export interface CallLog {
  middleware(): RequestHandler;
  /** Recorded calls, oldest first. */
  list(filter?: { messageId?: string | undefined }): ApiCall[];
  clear(): void;
}

/** Calls kept by default; older ones are dropped first. */
export const DEFAULT_CALL_LOG_CAPACITY = 1000;

const MESSAGE_PATH = /^\/messages\/([^/]+)/;

export function createCallLog(
  clock: Clock,
  options: {
    /** How many calls are kept. @default DEFAULT_CALL_LOG_CAPACITY */
    capacity?: number;
  } = {},
): CallLog {
  const capacity = options.capacity ?? DEFAULT_CALL_LOG_CAPACITY;
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
        const messageId =
          fromPath === undefined
            ? typeof fromQuery === 'string'
              ? fromQuery
              : undefined
            : decodeOrRaw(fromPath);
        if (messageId !== undefined) call.messageId = messageId;
        calls.push(call);
        if (calls.length > capacity) calls.splice(0, calls.length - capacity);
        const noteCreated = () => {
          const created = res.locals.messageId;
          if (call.messageId === undefined && typeof created === 'string') call.messageId = created;
        };
        res.on('finish', () => {
          call.status = res.statusCode;
          call.answeredAt = new Date(clock.now()).toISOString();
          noteCreated();
        });
        // A submit whose reply was lost (the lose-reply fault) created its message all the same.
        res.on('close', noteCreated);
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

/** A bad percent-escape (`%zz`) is recorded as sent; the route answers it with 400. */
function decodeOrRaw(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
