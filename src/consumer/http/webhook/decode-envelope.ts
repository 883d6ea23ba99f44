/**
 * A verified body to an envelope: its JSON shape first, on the bytes (nesting depth, members
 * per object, string length: protocol/json-shape.ts), then strict UTF-8, JSON and the
 * envelope's fields, each refused with its own 400.
 */
import {
  checkJsonShape,
  JsonShapeError,
  parseEnvelope,
  WEBHOOK_JSON_LIMITS,
  type WebhookEnvelope,
} from '../../../protocol/index.ts';
import { jsonShapeProblem } from '../json-shape-problem.ts';
import { Rejection } from './rejection.ts';

/**
 * Decodes the body or throws on any byte sequence that is not UTF-8 (RFC 8259 section 8.1).
 * A lenient decode would turn each bad sequence into U+FFFD, so two events whose eventIds differ
 * only there would be one event to the inbox: the second answered 204 as a duplicate and never
 * stored. A byte order mark is kept, and JSON.parse refuses it, as before.
 */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function decodeEnvelope(body: Buffer): WebhookEnvelope | Rejection {
  // Signed is not harmless: a 1 MiB body of nested arrays or of 70,000 keys held the event
  // loop for a second or more in JSON.parse (issue 26). The shape is checked first, on the
  // bytes (before they are decoded, which a bomb need not cost either), in one pass that
  // builds nothing; the worker parses the stored bytes again under the same limits.
  //
  // Every body, whatever its size (issue 39 asked whether small ones could skip it). No size
  // both spares the webhooks and keeps every answer: a body of N bytes holds at most N open
  // brackets, so only bodies under 33 bytes (WEBHOOK_JSON_LIMITS.maxDepth + 1) cannot break
  // the depth limit, and an envelope is some 300 bytes at least. Nor can the limits be
  // checked on the parsed value instead: JSON.parse keeps the last of two equal keys, so
  // `{"a":[[[...]]],"a":1}` hides its depth (and a thousand `"":0` members their number)
  // from any walk of the value, and would be answered otherwise than it is. So the scan
  // stays, made cheap (json-shape.ts: 3 KB in about 4 us, from 16).
  try {
    checkJsonShape(body, WEBHOOK_JSON_LIMITS);
  } catch (error) {
    if (!(error instanceof JsonShapeError)) throw error;
    return badRequest(jsonShapeProblem(error, WEBHOOK_JSON_LIMITS));
  }
  let text: string;
  try {
    text = STRICT_UTF8.decode(body);
  } catch {
    return badRequest({
      title: 'Body is not UTF-8',
      detail: 'The signed body is not valid UTF-8, which JSON between systems must be.',
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return badRequest({
      title: 'Body is not JSON',
      detail: 'The signed body could not be parsed as JSON.',
    });
  }
  const parsed = parseEnvelope(json);
  if (parsed.ok) return parsed.envelope;
  return badRequest({
    title: 'Invalid event envelope',
    detail: parsed.problems.join('; '),
    problems: parsed.problems,
  });
}

function badRequest(problem: {
  title: string;
  detail: string;
  type?: string;
  problems?: string[];
}): Rejection {
  return new Rejection('bad_request', { status: 400, ...problem });
}
