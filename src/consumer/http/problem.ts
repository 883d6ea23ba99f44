/** RFC 9457 problem responses: the one error body shape of every HTTP answer here. */
import type { Response } from 'express';

export interface Problem {
  status: number;
  title: string;
  detail?: string;
  /** A stable, documented identifier of the problem kind. */
  type?: string;
  [extension: string]: unknown;
}

export function sendProblem(res: Response, problem: Problem): void {
  res
    .status(problem.status)
    .type('application/problem+json')
    .send(JSON.stringify({ type: 'about:blank', ...problem }));
}
