/**
 * JSON request bodies of the admin routes, bounded in size and in shape before they are parsed;
 * a body over the shape limits gets the webhook path's 400 (json-shape-problem.ts).
 *
 * Before issue 37 POST /admin/submissions parsed whatever fit in its 1 MiB: a body of nested
 * arrays parsed, then overflowed the stack in JSON.stringify (`RangeError: Maximum call stack
 * size exceeded`), a 500 logged as an unhandled error, where a webhook of that shape was a 400
 * naming the limit. Every admin route that takes JSON reads it through a reader of
 * createJsonObjectReader, so the same bytes get the same answer on either path.
 */
import express, { type Request } from 'express';
import {
  checkJsonShape,
  JsonShapeError,
  type JsonShapeLimits,
  WEBHOOK_JSON_LIMITS,
} from '../../protocol/index.ts';
import { jsonShapeProblem } from './json-shape-problem.ts';
import type { Problem } from './problem.ts';

/**
 * The shape limits of admin bodies: the webhooks' (nesting depth 32, 1,000 members per object,
 * 256 KiB per string). A submit-invoice body is an invoice a few levels deep with a few dozen
 * members per object and short strings; the limits leave room for far larger ones.
 */
export const ADMIN_JSON_LIMITS: Readonly<JsonShapeLimits> = WEBHOOK_JSON_LIMITS;

/** What an admin route says about the bodies it refuses, in its own words. */
export interface JsonBodyAnswers {
  /** Largest body in bytes: beyond it, 413. */
  maxBytes: number;
  /** The title of a 400 for a body that is not JSON or not an object ("Invalid submission"). */
  invalidTitle: string;
  /** The detail of the 413. */
  tooLargeDetail: string;
}

export type ParsedBody = { body: object } | { problem: Problem };

/**
 * A reader for one route: the body as a JSON object, or the problem to answer (400 over the
 * shape limits, not JSON or not an object; 413 too large; 415 compressed or not UTF-8).
 */
export function createJsonObjectReader(
  answers: JsonBodyAnswers,
): (req: Request) => Promise<ParsedBody> {
  // No inflation: a compressed body could grow past the bound once read. The shape is checked
  // on the raw bytes (verify runs before JSON.parse), so nothing of a bomb is ever built.
  const read = express.json({
    limit: answers.maxBytes,
    inflate: false,
    strict: true,
    verify: (_req, _res, bytes) => checkJsonShape(bytes, ADMIN_JSON_LIMITS),
  });
  const refusals: Record<number, Problem> = {
    413: { status: 413, title: 'Content Too Large', detail: answers.tooLargeDetail },
    415: {
      status: 415,
      title: 'Unsupported Media Type',
      detail: 'Send the body uncompressed, as UTF-8 JSON.',
    },
  };
  const notJson: Problem = {
    status: 400,
    title: answers.invalidTitle,
    detail: 'The body is not valid JSON.',
  };
  const notAnObject: Problem = {
    status: 400,
    title: answers.invalidTitle,
    detail: 'Send a JSON object.',
  };
  return (req) =>
    new Promise((resolve) => {
      read(req, req.res as express.Response, (error?: unknown) => {
        // body-parser hands the verify step's own error on (with a 403 status of its own).
        if (error instanceof JsonShapeError) {
          return resolve({ problem: jsonShapeProblem(error, ADMIN_JSON_LIMITS) });
        }
        if (error !== undefined) {
          const status = (error as { status?: number }).status ?? 400;
          return resolve({ problem: refusals[status] ?? notJson });
        }
        const body: unknown = req.body;
        const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
        resolve(isObject ? { body } : { problem: notAnObject });
      });
    });
}
