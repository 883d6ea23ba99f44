/**
 * The gateway image (docker/gateway: Caddy with its Caddyfile) on its own, for what it does
 * besides forwarding, which compose.test.ts checks (issue 26): no request header reaches its
 * logs, neither the access log nor Caddy's own (where a 502 is logged with the request), so a
 * credential header named as the operator likes never does; a request head over 16 KiB is
 * refused; and with GATEWAY_CLIENT_RANGES only the service's addresses reach the consumer.
 *
 * No consumer runs behind it (GATEWAY_UPSTREAMS names a closed port): every webhook it forwards
 * is a 502, which is also the case that used to log the request's headers.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithEngine } from './support/engine.ts';
import { waitFor } from './support/http.ts';
import { buildImages, GATEWAY_IMAGE } from './support/images.ts';

const run = promisify(execFile);

const CREDENTIALS = {
  authorization: 'Bearer gateway-test-bearer-0123456789',
  'x-erp-api-key': 'gateway-test-custom-header-0123456789',
  'svc-webhook-signature': 't=1700000000,v0=gateway-test-signature-0123456789',
};

/** HTTP/1.1, as the service sends, to the site `gateway` with its certificate of Caddy's local CA. */
const newAgent = () =>
  new Agent({ allowH2: false, connect: { rejectUnauthorized: false, servername: 'gateway' } });

/**
 * The gateway, once it completes a TLS handshake: Caddy logs "certificate obtained" a moment
 * before it serves the certificate, and a handshake in between fails.
 */
async function startGateway(env: Record<string, string>): Promise<StartedTestContainer> {
  const container = await new GenericContainer(GATEWAY_IMAGE)
    .withEnvironment({ GATEWAY_UPSTREAMS: '127.0.0.1:9', ...env })
    .withExposedPorts(8443)
    .withWaitStrategy(Wait.forLogMessage('certificate obtained successfully'))
    .start();
  const agent = newAgent();
  try {
    await waitFor('a TLS handshake with the gateway', async () => {
      const url = `https://${container.getHost()}:${container.getMappedPort(8443)}/`;
      const res = await request(url, { headers: { host: 'gateway' }, dispatcher: agent });
      await res.body.dump();
      return true;
    });
  } finally {
    await agent.close();
  }
  return container;
}

/** What the gateway logged so far. */
async function logsOf(container: StartedTestContainer): Promise<string> {
  const { stdout, stderr } = await run('docker', ['logs', container.getId()], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return `${stdout}${stderr}`;
}

describeWithEngine('the gateway (docker/gateway/Caddyfile)', () => {
  let gateway: StartedTestContainer;
  /** Each request on a connection of its own, as a new client's. */
  const send = async (
    container: StartedTestContainer,
    init: { path?: string; method?: string; headers?: Record<string, string> } = {},
  ) => {
    const url = `https://${container.getHost()}:${container.getMappedPort(8443)}`;
    const agent = newAgent();
    try {
      const res = await request(`${url}${init.path ?? '/webhooks'}`, {
        method: init.method ?? 'POST',
        headers: { host: 'gateway', 'content-type': 'application/json', ...init.headers },
        body: init.method === 'GET' ? null : '{}',
        dispatcher: agent,
      });
      await res.body.dump();
      return res.statusCode;
    } finally {
      await agent.close();
    }
  };

  beforeAll(async () => {
    await buildImages();
    gateway = await startGateway({});
  }, 10 * 60_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  it('logs each request without its headers, in the access log and in Caddy’s own', async () => {
    expect(await send(gateway, { headers: CREDENTIALS })).toBe(502);
    expect(await send(gateway, { path: '/healthz', method: 'GET', headers: CREDENTIALS })).toBe(
      404,
    );
    let logs = '';
    await waitFor('both requests in the access log', async () => {
      logs = await logsOf(gateway);
      return logs.includes('"uri":"/webhooks"') && logs.includes('"uri":"/healthz"');
    });
    const lines = logs.split('\n').filter((line) => line.includes('"uri":"/webhooks"'));
    // The access log's line and Caddy's error line for the 502.
    expect(lines.some((line) => line.includes('"status":502'))).toBe(true);
    expect(lines.some((line) => line.includes('"logger":"http.log.error'))).toBe(true);
    for (const line of lines) expect(JSON.parse(line).request.headers).toBeUndefined();
    for (const [name, value] of Object.entries(CREDENTIALS)) {
      expect(logs, name).not.toContain(value.slice(-20));
    }
  });

  it('refuses a request head over 16 KiB', async () => {
    // Go allows 4 KiB over the limit it is given before it answers 431. Checked on a new
    // connection: the stand-in's Caddy (Go 1.19) lets a later request of a keep-alive
    // connection through after a bodiless one.
    expect(await send(gateway, { headers: { 'x-padding': 'x'.repeat(24_000) } })).toBe(431);
    // Forwarded: 502, or 503 once the first 502 left the closed upstream out for 5 s.
    expect([502, 503]).toContain(
      await send(gateway, { headers: { 'x-padding': 'x'.repeat(8_000) } }),
    );
  });

  it('answers 404 to a webhook from outside GATEWAY_CLIENT_RANGES', async () => {
    const limited = await startGateway({ GATEWAY_CLIENT_RANGES: '192.0.2.0/24 2001:db8::/32' });
    try {
      expect(await send(limited)).toBe(404);
    } finally {
      await limited.stop();
    }
  });
});
