/**
 * Request bodies of the messaging API are JSON and nothing else: every operation of its OpenAPI
 * document (docs/openapi.json) declares `application/json` only, so a body of any other type is
 * answered 415 rather than guessed at (docs/decisions.md#request-content-type). Until issue 27
 * submit-invoice read any type as JSON; a client tried against that could still fail against a
 * service that keeps to its document.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { checkJsonShape, DOCUMENT_JSON_LIMITS, JsonShapeError } from '../../protocol/index.ts';
import { InvalidRequestError, UnsupportedMediaTypeError } from '../errors.ts';

/**
 * A middleware on the bare Node request, as express.json() is: unlike an express RequestHandler
 * it fits before any route's handler without replacing the route's own path parameters.
 */
export type BodyHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/** The one media type the document declares for request bodies. */
export const JSON_MEDIA_TYPE = 'application/json';

/**
 * `application/json` with any parameters (`; charset=utf-8`) and in any letter case (media
 * types are case-insensitive, RFC 9110 section 8.3.1). `application/*+json` does not count:
 * merge-patch, problem or a vendor type is another format with its own meaning that only uses
 * JSON syntax, and the document lists none of them.
 */
export function isJsonMediaType(contentType: string | undefined): boolean {
  return mediaType(contentType) === JSON_MEDIA_TYPE;
}

function mediaType(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  return type === '' ? undefined : type;
}

/**
 * Whether the request carries a body, from its headers alone: a Content-Length other than 0,
 * or any Transfer-Encoding (a chunked body may turn out empty, but knowing that means reading it).
 */
function declaresBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && Number(length) !== 0;
}

/**
 * 415 for a body that is not JSON, decided from the headers: the body is neither read nor
 * buffered (once the answer is out, Node discards whatever the client still sends). An empty
 * body has no type to check: mark-as-delivered and mark-as-failed need none, and submit-invoice
 * answers it 400, as any body that is not a JSON object.
 */
export function requireJsonBody(): BodyHandler {
  return (req, _res, next) => {
    const contentType = req.headers['content-type'];
    if (declaresBody(req) && !isJsonMediaType(contentType)) {
      next(new UnsupportedMediaTypeError(JSON_MEDIA_TYPE, mediaType(contentType)));
      return;
    }
    next();
  };
}

/**
 * The JSON's shape before it is parsed, with the bounds the consumer puts on a business document
 * (src/protocol/json-shape.ts): a body nested thousands deep parses, and then overflows the
 * stack of whatever walks it (a 500 before).
 */
export function checkJsonBodyShape(
  _req: IncomingMessage,
  _res: ServerResponse,
  body: Buffer,
): void {
  try {
    checkJsonShape(body, DOCUMENT_JSON_LIMITS);
  } catch (error) {
    if (!(error instanceof JsonShapeError)) throw error;
    throw new InvalidRequestError(
      `The request body is too deeply nested or too wide: ${error.message}`,
    );
  }
}

/**
 * The type check, then the JSON parser: 400 for a body that is not JSON text or breaks the
 * shape bounds, 413 beyond `limit` (counted as the body arrives), 415 for a charset that is
 * not a UTF one.
 */
export function createJsonBody(limit: string): [BodyHandler, BodyHandler] {
  return [
    requireJsonBody(),
    // The same test as the check, so whatever passed it is parsed and nothing else is.
    express.json({
      limit,
      type: (req) => isJsonMediaType(req.headers['content-type']),
      verify: checkJsonBodyShape,
    }),
  ];
}
