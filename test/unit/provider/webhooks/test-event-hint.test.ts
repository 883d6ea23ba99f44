/** The test-event result's hint: docs/webhook-endpoints.md#test-event-diagnostics's table, from an attempt's outcome. */
import { describe, expect, it } from 'vitest';
import { testEventHint } from '../../../../src/provider/webhooks/test-event.ts';

describe('testEventHint', () => {
  it.each([
    [{ statusCode: 401 }, /signature verification with this endpoint's signing secret/],
    [{ statusCode: 403 }, /credential/],
    [{ statusCode: 404 }, /^Wrong URL/],
    [{ error: 'timeout: no complete answer within 5000 ms' }, /process it in the background/],
    [{ error: 'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate' }, /^TLS error/],
    [{ error: 'CERT_HAS_EXPIRED: certificate has expired' }, /^TLS error/],
    [
      { error: "ERR_TLS_CERT_ALTNAME_INVALID: Hostname/IP does not match certificate's altnames" },
      /^TLS error/,
    ],
    [{ error: 'EPROTO: wrong version number' }, /^TLS error/],
    [{ error: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9' }, /Is the consumer running\?/],
    [{ error: 'ENOTFOUND: getaddrinfo ENOTFOUND erp.invalid' }, /does not resolve/],
  ])('%o', (outcome, hint) => {
    expect(testEventHint(outcome)).toMatch(hint);
  });

  it('has nothing to say about a success or a 500', () => {
    expect(testEventHint({ statusCode: 204 })).toBeUndefined();
    expect(testEventHint({ statusCode: 500 })).toBeUndefined();
    expect(testEventHint({ error: 'UND_ERR_SOCKET: other side closed' })).toBeUndefined();
  });
});
