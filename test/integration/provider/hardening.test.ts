/**
 * The sandbox is not an open door (issue 17): an optional admin token, a call log that records
 * only authenticated calls and keeps the last ones, and 400 (never 500) for `%zz` in a path.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CALL_LOG_CAPACITY } from '../../../src/provider/api/call-log.ts';
import { SANDBOX, startTestProvider, type TestProvider } from './helpers.ts';

let provider: TestProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

const ADMIN_TOKEN = 'provider-admin-token';

describe('admin token', () => {
  it('guards every /admin route when set, and only those', async () => {
    provider = await startTestProvider({ adminToken: ADMIN_TOKEN });
    const url = `${provider.url}/admin/participants`;
    const none = await fetch(url);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await none.json()).toMatchObject({ status: 401, title: 'Unauthorized' });
    expect((await fetch(url, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    const prefix = `Bearer ${ADMIN_TOKEN.slice(0, -1)}`;
    expect((await fetch(url, { headers: { authorization: prefix } })).status).toBe(401);
    // Dispatcher routes and unknown admin paths too, without telling what exists.
    for (const path of [`/participants/${SANDBOX}/endpoints`, '/deliveries/x', '/no/such/route']) {
      expect((await fetch(`${provider.url}/admin${path}`)).status).toBe(401);
    }
    const ok = await fetch(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(ok.status).toBe(200);
    // The messaging API keeps its own token.
    expect((await provider.api('/messages')).status).toBe(200);
  });

  it('is not asked for when unset (loopback sandbox)', async () => {
    provider = await startTestProvider();
    expect((await fetch(`${provider.url}/admin/participants`)).status).toBe(200);
  });
});

describe('call log', () => {
  it('records only calls that passed the token check', async () => {
    provider = await startTestProvider();
    for (let i = 0; i < 5; i++) {
      expect((await fetch(`${provider.url}/messages/m-${i}`)).status).toBe(401);
    }
    expect((await provider.api('/messages/known-later')).status).toBe(404);
    expect(provider.provider.callLog.list().map((c) => [c.path, c.status])).toEqual([
      ['/messages/known-later', 404],
    ]);
  });

  it('keeps only the most recent calls', async () => {
    provider = await startTestProvider({ callLogCapacity: 3 });
    for (let i = 0; i < 5; i++) await provider.api(`/messages/m-${i}`);
    expect(provider.provider.callLog.list().map((c) => c.messageId)).toEqual(['m-2', 'm-3', 'm-4']);
  });

  it('keeps 1000 calls by default', () => {
    expect(DEFAULT_CALL_LOG_CAPACITY).toBe(1000);
  });
});

describe('bad percent-escapes', () => {
  it.each([
    ['messaging API', '/messages/%zz', true],
    ['messaging API, nested', '/messages/%E0%A4%A/documents/core', true],
    ['scenario admin API', '/admin/messages/%zz', false],
    ['dispatcher admin API', '/admin/deliveries/%zz', false],
    ['dispatcher admin API, party', '/admin/participants/%zz/endpoints', false],
  ])('%s: %s answers 400 with a problem body', async (_where, path, api) => {
    provider = await startTestProvider();
    const res = api ? await provider.api(path) : await fetch(`${provider.url}${path}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await res.json()).toMatchObject({
      status: 400,
      detail: 'The path contains an invalid percent-escape.',
    });
  });

  it('answers 401, not 500, before authentication', async () => {
    provider = await startTestProvider();
    expect((await fetch(`${provider.url}/messages/%zz`)).status).toBe(401);
    expect(provider.provider.callLog.list()).toEqual([]);
  });
});
