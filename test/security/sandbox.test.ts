/**
 * The sandbox is not an open door (issue 17, medium): `npm run provider` as a real process.
 * It listens on loopback unless PROVIDER_HOST says otherwise, its admin API can require a
 * token, it never hands an endpoint's credential back, records only authenticated calls and
 * answers `%zz` with 400.
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from './support/consumer-process.ts';
import { type ProviderProcess, startProviderProcess } from './support/provider-process.ts';

const PARTY = '0192:999999999';
const ADMIN_TOKEN = 'sandbox-admin-token-for-tests';
const API = { authorization: 'Bearer sandbox-token' };
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

let provider: ProviderProcess | undefined;
let echo: Server | undefined;
afterEach(async () => {
  await provider?.stop();
  provider = undefined;
  echo?.closeAllConnections();
  await new Promise((resolve) => (echo ? echo.close(resolve) : resolve(undefined)));
  echo = undefined;
});

/** A non-loopback IPv4 address of this machine, if it has one. */
function externalIPv4(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) return address.address;
    }
  }
  return undefined;
}

/** 'connected' or the error code of the attempt. */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('binding', () => {
  const external = externalIPv4();
  it(
    external === undefined
      ? 'listens on 127.0.0.1 by default (this machine has no non-loopback IPv4 address to try)'
      : `is not reachable on this machine's non-loopback address ${external} by default`,
    async () => {
      provider = await startProviderProcess({});
      expect(provider.address).toBe(`127.0.0.1:${provider.port}`);
      expect(await tryConnect('127.0.0.1', provider.port)).toBe('connected');
      if (external !== undefined) {
        expect(await tryConnect(external, provider.port)).toBe('ECONNREFUSED');
      }
    },
  );

  it('binds where PROVIDER_HOST says and prints that address, with a warning without a token', async () => {
    provider = await startProviderProcess({ PROVIDER_HOST: '0.0.0.0' });
    expect(provider.address).toBe(`0.0.0.0:${provider.port}`);
    await waitUntil(
      () => provider?.output().includes('WARNING: the admin API has no token') === true,
      'the warning',
    );
  });
});

describe('PROVIDER_ADMIN_TOKEN', () => {
  it('guards the admin API; the messaging API keeps its own token', async () => {
    provider = await startProviderProcess({ PROVIDER_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(provider.output()).not.toContain('WARNING');
    const admin = (headers: Record<string, string>) =>
      fetch(`${provider?.url}/admin/participants/${PARTY}/endpoints`, { headers });
    expect((await admin({})).status).toBe(401);
    expect((await admin({ authorization: 'Bearer sandbox-token' })).status).toBe(401);
    expect((await admin({ authorization: `Bearer ${ADMIN_TOKEN}x` })).status).toBe(401);
    expect((await admin(ADMIN)).status).toBe(200);
    expect((await fetch(`${provider.url}/messages`, { headers: API })).status).toBe(200);
  });
});

describe('without PROVIDER_ADMIN_TOKEN, a web page cannot drive the admin API', () => {
  it('refuses a foreign Origin and a Host that is not loopback (DNS rebinding), 403', async () => {
    provider = await startProviderProcess({});
    const inbound = (headers: Record<string, string>) =>
      request(`${provider?.url}/admin/messages/inbound`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
    const status = async (headers: Record<string, string>) => {
      const res = await inbound(headers);
      await res.body.dump();
      return res.statusCode;
    };
    // A page elsewhere posting to the sandbox: the browser names it in Origin.
    expect(await status({ origin: 'https://attacker.example' })).toBe(403);
    expect(await status({ origin: 'null' })).toBe(403);
    // A page whose own name was re-pointed at 127.0.0.1: same-origin to the browser.
    const rebound = `attacker.example:${provider.port}`;
    expect(await status({ host: rebound, origin: `http://${rebound}` })).toBe(403);
    expect(await status({ host: rebound })).toBe(403);
    // Tools, and the console on its own origin, are unaffected.
    expect(await status({})).toBe(201);
    expect(await status({ host: `localhost:${provider.port}` })).toBe(201);
    expect(await status({ origin: provider.url })).toBe(201);
    // Only the three accepted calls sent an invoice.
    const listed = await request(`${provider.url}/admin/messages`);
    const { items } = (await listed.body.json()) as { items: unknown[] };
    expect(items).toHaveLength(3);
  });
});

describe('with or without a token, a web page cannot drive any route (issue 26)', () => {
  /** Status of a request to the sandbox with the given headers; the body is dropped. */
  const status = async (
    path: string,
    headers: Record<string, string>,
    init: { method?: string; body?: string } = {},
  ) => {
    const res = await request(`${provider?.url}${path}`, { ...init, headers });
    await res.body.dump();
    return res.statusCode;
  };
  const create = (headers: Record<string, string>) =>
    status(`/admin/participants/${PARTY}/endpoints`, headers, {
      method: 'POST',
      body: JSON.stringify({ name: 'rebound', url: 'http://127.0.0.1:9/webhooks' }),
    });

  it('refuses a rebound Host and a foreign Origin even with the right admin token, 403', async () => {
    provider = await startProviderProcess({ PROVIDER_ADMIN_TOKEN: ADMIN_TOKEN });
    const rebound = `attacker.example:${provider.port}`;
    // Before issue 26 this answered 201 with the new endpoint's signing secret.
    expect(await create({ ...ADMIN, host: rebound })).toBe(403);
    expect(await create({ ...ADMIN, host: rebound, origin: `http://${rebound}` })).toBe(403);
    expect(await create({ ...ADMIN, origin: 'https://attacker.example' })).toBe(403);
    expect(await create(ADMIN)).toBe(201);
    expect(await create({ ...ADMIN, host: `localhost:${provider.port}` })).toBe(201);
  });

  it('guards the messaging API, the console and the contract too', async () => {
    provider = await startProviderProcess({ PROVIDER_ADMIN_TOKEN: ADMIN_TOKEN });
    const rebound = { host: `attacker.example:${provider.port}` };
    const foreign = { origin: 'https://attacker.example' };
    for (const path of ['/messages', '/', '/console/app.js', '/openapi.json']) {
      expect(await status(path, { ...API, ...rebound }), path).toBe(403);
      expect(await status(path, { ...API, ...foreign }), path).toBe(403);
      expect(await status(path, API), path).toBe(200);
    }
    const submit = { method: 'POST', body: '{}' };
    const json = { ...API, 'content-type': 'application/json' };
    expect(await status('/transactions/submit-invoice', { ...json, ...rebound }, submit)).toBe(403);
  });

  it('parses a bracketed Host strictly: [::1]evil.example is refused, [::1] accepted', async () => {
    provider = await startProviderProcess({});
    const inbound = (host: string) =>
      status(
        '/admin/messages/inbound',
        { host, 'content-type': 'application/json' },
        {
          method: 'POST',
          body: '{}',
        },
      );
    expect(await inbound('[::1]evil.example')).toBe(403);
    expect(await inbound(`[::1]evil.example:${provider.port}`)).toBe(403);
    expect(await inbound(`[::1]:${provider.port}`)).toBe(201);
  });

  it('answers the names in PROVIDER_ALLOWED_HOSTS: a compose service name', async () => {
    provider = await startProviderProcess({
      PROVIDER_ADMIN_TOKEN: ADMIN_TOKEN,
      PROVIDER_ALLOWED_HOSTS: 'provider',
    });
    expect(await status('/messages', { ...API, host: 'provider:4000' })).toBe(200);
    expect(await create({ ...ADMIN, host: 'provider:4000' })).toBe(201);
    expect(await create({ ...ADMIN, host: 'provider.attacker.example:4000' })).toBe(403);
  });
});

describe('credentials are never echoed', () => {
  it('neither in the test-event result nor in the delivery log, even from an echoing endpoint', async () => {
    // An endpoint that answers with the headers it received.
    echo = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end(JSON.stringify(req.headers)));
    });
    await new Promise<void>((resolve) => echo?.listen(0, '127.0.0.1', resolve));
    const { port } = echo.address() as { port: number };
    provider = await startProviderProcess({ PROVIDER_ADMIN_TOKEN: ADMIN_TOKEN });
    const base = `${provider.url}/admin`;
    const secret = 'credential-value-never-shown';

    const created = await fetch(`${base}/participants/${PARTY}/endpoints`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({
        name: 'echo',
        url: `http://127.0.0.1:${port}/webhooks`,
        credential: { type: 'header', name: 'X-Api-Key', value: secret },
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };

    const result = await fetch(`${base}/participants/${PARTY}/endpoints/${id}/test-event`, {
      method: 'POST',
      headers: ADMIN,
      body: '{}',
    });
    const shown = await result.text();
    expect(JSON.parse(shown)).toMatchObject({ statusCode: 200, success: true });
    expect(JSON.parse(shown).request.headers['x-api-key']).toBe('[redacted]');
    expect(shown).not.toContain(secret);

    // A real event routed to the endpoint: its attempt's answer is in the delivery log.
    await fetch(`${base}/messages/inbound`, { method: 'POST', headers: ADMIN, body: '{}' });
    let log = '';
    await waitUntil(async () => {
      const res = await fetch(`${base}/participants/${PARTY}/deliveries`, { headers: ADMIN });
      log = await res.text();
      return log.includes('"statusCode":200');
    }, 'a delivered event in the log');
    expect(log).toContain('[redacted]');
    expect(log).not.toContain(secret);
  });
});

describe('credentials echoed re-encoded are not shown either (issue 26)', () => {
  // What an echo service does with what it received: each is the whole answer of one endpoint.
  const ENCODINGS: Record<string, (value: string) => string> = {
    plain: (value) => value,
    'JSON-escaped': (value) => JSON.stringify({ 'x-api-key': value }),
    'percent-encoded': (value) => `?key=${encodeURIComponent(value)}`,
    base64: (value) => Buffer.from(value).toString('base64'),
    'base64 at another alignment': (value) => Buffer.from(`k=${value}`).toString('base64'),
    'upper-cased': (value) => value.toUpperCase(),
  };
  // Every encoding above changes it: quotes, a slash, reserved characters, lower case.
  const secret = 'cred "v4lue" /+&=? never-shown';

  it('withholds the answer of an endpoint with a credential, whatever its encoding', async () => {
    echo = createServer((req, res) => {
      const encode = ENCODINGS[decodeURIComponent(req.url?.slice(1) ?? '')];
      req.resume();
      req.on('end', () => res.writeHead(200).end(encode?.(String(req.headers['x-api-key']))));
    });
    await new Promise<void>((resolve) => echo?.listen(0, '127.0.0.1', resolve));
    const { port } = echo.address() as { port: number };
    provider = await startProviderProcess({ PROVIDER_ADMIN_TOKEN: ADMIN_TOKEN });
    const base = `${provider.url}/admin/participants/${PARTY}/endpoints`;

    for (const [name, encode] of Object.entries(ENCODINGS)) {
      const created = await fetch(base, {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify({
          name,
          url: `http://127.0.0.1:${port}/${encodeURIComponent(name)}`,
          credential: { type: 'header', name: 'X-Api-Key', value: secret },
        }),
      });
      const { id } = (await created.json()) as { id: string };
      const res = await fetch(`${base}/${id}/test-event`, {
        method: 'POST',
        headers: ADMIN,
        body: '{}',
      });
      const shown = await res.text();
      const result = JSON.parse(shown) as { bodyStart: string };
      expect(result, name).toMatchObject({ statusCode: 200, success: true });
      expect(result.bodyStart, name).not.toContain(encode(secret));
      expect(shown.toLowerCase(), name).not.toContain('v4lue');
    }
  });
});

describe('call log and bad paths', () => {
  it('records only authenticated calls and answers %zz with 400, never 500', async () => {
    provider = await startProviderProcess({});
    const { url } = provider;
    for (let i = 0; i < 20; i++) {
      expect((await fetch(`${url}/messages/anonymous-${i}`)).status).toBe(401);
    }
    expect((await fetch(`${url}/messages/%zz`)).status).toBe(401);
    const bad = await fetch(`${url}/messages/%zz`, { headers: API });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    for (const path of ['/admin/messages/%zz', '/admin/deliveries/%zz']) {
      expect((await fetch(`${url}${path}`)).status).toBe(400);
    }
    const calls = (await (await fetch(`${url}/admin/api-calls`)).json()) as {
      items: { path: string; status: number }[];
    };
    expect(calls.items).toEqual([expect.objectContaining({ path: '/messages/%zz', status: 400 })]);
  });
});
