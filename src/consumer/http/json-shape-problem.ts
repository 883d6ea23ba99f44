/**
 * The 400 for JSON over its shape limits (src/protocol/json-shape.ts), one answer for every
 * route that reads JSON: the webhook path (webhook/decode-envelope.ts) and the admin routes
 * (json-body.ts). Its `type` names the limit broken, `urn:webhook-consumer:json-shape:depth`
 * (`:keys`, `:string`), as docs/how-it-works.md#answers documents.
 */
import type { JsonShapeError, JsonShapeLimits } from '../../protocol/index.ts';
import type { Problem } from './problem.ts';

/** The 400 for JSON over `limits`: its `type` names the limit, its detail all of them. */
export function jsonShapeProblem(
  error: JsonShapeError,
  limits: Readonly<JsonShapeLimits>,
): Problem & { title: string; detail: string; type: string } {
  return {
    status: 400,
    title: 'Body is JSON of an unsupported shape',
    type: `urn:webhook-consumer:json-shape:${error.limit}`,
    detail: `${error.message}; limits: nesting depth ${limits.maxDepth}, ${limits.maxKeysPerObject} members per object, ${limits.maxStringBytes} bytes per string.`,
  };
}
