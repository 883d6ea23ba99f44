import { describe, expect, it } from 'vitest';
import { ApiError, parseProblem } from '../../../../src/consumer/api/api-error.ts';

describe('parseProblem', () => {
  it('reads the RFC 9457 fields from a problem body', () => {
    const body = JSON.stringify({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: 'body is not an object',
      extra: 1,
    });
    expect(parseProblem('application/problem+json', body)).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: 'body is not an object',
    });
  });

  it('keeps only fields of the right type', () => {
    expect(parseProblem('application/json', '{"title": 4, "detail": "x"}')).toEqual({
      detail: 'x',
    });
  });

  it('gives nothing for other content types, bad JSON or JSON without problem fields', () => {
    expect(parseProblem('text/html', '{"detail":"x"}')).toBeUndefined();
    expect(parseProblem(undefined, '{"detail":"x"}')).toBeUndefined();
    expect(parseProblem('application/problem+json', '<html>')).toBeUndefined();
    expect(parseProblem('application/json', '[1]')).toBeUndefined();
    expect(parseProblem('application/json', '{"a":1}')).toBeUndefined();
  });
});

describe('ApiError', () => {
  it('carries its context and a stable name', () => {
    const error = new ApiError('GET /x answered 404: not found', {
      status: 404,
      body: 'not found',
      method: 'GET',
      path: '/x',
      retryable: false,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ApiError');
    expect(error).toMatchObject({ status: 404, method: 'GET', path: '/x', retryable: false });
    expect(error.problem).toBeUndefined();
  });
});
