/** RFC 9457 problem responses: the one error body shape of every HTTP answer here. */
import type { ServerResponse } from 'node:http';

export interface Problem {
  status: number;
  title: string;
  detail?: string;
  /** A stable, documented identifier of the problem kind. */
  type?: string;
  [extension: string]: unknown;
}

/**
 * Written on node's own response, so the webhook route, which answers without express
 * (app.ts), and the express routes answer a problem alike. (Node leaves the body out of an
 * answer to HEAD and keeps its Content-Length.)
 */
export function sendProblem(res: ServerResponse, problem: Problem): void {
  const body = JSON.stringify({ type: 'about:blank', ...problem });
  res.statusCode = problem.status;
  res.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
