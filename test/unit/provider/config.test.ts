import { describe, expect, it } from 'vitest';
import { ConfigError, loadProviderCa, loadProviderConfig } from '../../../src/provider/config.ts';

describe('loadProviderConfig', () => {
  it('has the defaults of DESIGN.md section 4', () => {
    expect(loadProviderConfig({})).toEqual({
      port: 4000,
      host: '127.0.0.1',
      allowedHosts: [],
      adminToken: undefined,
      apiToken: 'sandbox-token',
      party: '0192:999999999',
      webhookUrl: undefined,
      webhookSecret: undefined,
      timeScale: 1,
      caFile: undefined,
      demoIntervalSeconds: 0,
      logLevel: 'info',
      production: false,
    });
  });

  it('reads every variable', () => {
    expect(
      loadProviderConfig({
        PROVIDER_PORT: '0',
        PROVIDER_HOST: '0.0.0.0',
        PROVIDER_ALLOWED_HOSTS: 'provider, Sandbox.Internal',
        PROVIDER_ADMIN_TOKEN: 'admin-secret',
        PROVIDER_API_TOKEN: 't',
        PROVIDER_PARTY: '9908:123',
        PROVIDER_WEBHOOK_URL: 'http://localhost:3000/webhooks',
        PROVIDER_WEBHOOK_SECRET: 'whsec_x',
        PROVIDER_TIME_SCALE: '60',
        PROVIDER_CA_FILE: '/gateway-ca/root.crt',
        DEMO_INTERVAL_SECONDS: '30',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
      }),
    ).toEqual({
      port: 0,
      host: '0.0.0.0',
      allowedHosts: ['provider', 'sandbox.internal'],
      adminToken: 'admin-secret',
      apiToken: 't',
      party: '9908:123',
      webhookUrl: 'http://localhost:3000/webhooks',
      webhookSecret: 'whsec_x',
      timeScale: 60,
      caFile: '/gateway-ca/root.crt',
      demoIntervalSeconds: 30,
      logLevel: 'warn',
      production: true,
    });
  });

  it.each([
    ['PROVIDER_PORT', 'abc'],
    ['PROVIDER_PORT', '70000'],
    ['PROVIDER_PORT', '40.5'],
    ['PROVIDER_TIME_SCALE', 'fast'],
    ['PROVIDER_TIME_SCALE', '0'],
    ['PROVIDER_TIME_SCALE', '-2'],
    ['PROVIDER_PARTY', 'sandbox'],
    ['PROVIDER_WEBHOOK_URL', 'localhost:3000'],
    ['PROVIDER_HOST', 'http://0.0.0.0'],
    ['PROVIDER_HOST', 'a host'],
    ['PROVIDER_ALLOWED_HOSTS', 'provider:4000'],
    ['PROVIDER_ALLOWED_HOSTS', 'http://provider'],
    ['PROVIDER_ALLOWED_HOSTS', 'provider,[::1]evil.example'],
    ['PROVIDER_ALLOWED_HOSTS', '10.0.0.7'],
    ['DEMO_INTERVAL_SECONDS', '1.5'],
    ['DEMO_INTERVAL_SECONDS', 'often'],
    ['LOG_LEVEL', 'verbose'],
  ])('rejects %s=%s naming the variable', (name, value) => {
    const load = () => loadProviderConfig({ [name]: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(new RegExp(`^${name}:`));
  });

  it('reads PROVIDER_ALLOWED_HOSTS once each, in lower case', () => {
    expect(
      loadProviderConfig({ PROVIDER_ALLOWED_HOSTS: 'Provider,provider, sandbox.lan' }).allowedHosts,
    ).toEqual(['provider', 'sandbox.lan']);
  });

  it('redacts the userinfo of a URL-like value in its error', () => {
    const load = () => loadProviderConfig({ PROVIDER_WEBHOOK_URL: 'ftp://u:PASSWORD@host/x' });
    expect(load).toThrow(/^PROVIDER_WEBHOOK_URL: "ftp:\/\/\[redacted\]@host\/x"/);
    expect(load).not.toThrow(/PASSWORD/);
  });
});

describe('loadProviderCa', () => {
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

  it('is undefined without PROVIDER_CA_FILE', () => {
    expect(loadProviderCa({ caFile: undefined })).toBeUndefined();
  });

  it('reads the certificates of PROVIDER_CA_FILE', () => {
    expect(loadProviderCa({ caFile: '/ca.crt' }, () => pem)).toBe(pem);
  });

  it('names PROVIDER_CA_FILE when the file cannot be read', () => {
    const missing = () =>
      loadProviderCa({ caFile: '/nowhere/ca.crt' }, () => {
        throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
      });
    expect(missing).toThrow(ConfigError);
    expect(missing).toThrow(/^PROVIDER_CA_FILE: "\/nowhere\/ca.crt" cannot be read \(ENOENT\)/);
  });

  it('names PROVIDER_CA_FILE when the file holds no certificate', () => {
    expect(() => loadProviderCa({ caFile: '/key.pem' }, () => 'PRIVATE KEY')).toThrow(
      /^PROVIDER_CA_FILE: .* holds no PEM certificate/,
    );
  });
});
