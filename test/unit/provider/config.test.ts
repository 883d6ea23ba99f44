import { describe, expect, it } from 'vitest';
import { ConfigError, loadProviderConfig } from '../../../src/provider/config.ts';

describe('loadProviderConfig', () => {
  it('has the defaults of DESIGN.md section 4', () => {
    expect(loadProviderConfig({})).toEqual({
      port: 4000,
      host: '127.0.0.1',
      adminToken: undefined,
      apiToken: 'sandbox-token',
      party: '0192:999999999',
      webhookUrl: undefined,
      webhookSecret: undefined,
      timeScale: 1,
    });
  });

  it('reads every variable', () => {
    expect(
      loadProviderConfig({
        PROVIDER_PORT: '0',
        PROVIDER_HOST: '0.0.0.0',
        PROVIDER_ADMIN_TOKEN: 'admin-secret',
        PROVIDER_API_TOKEN: 't',
        PROVIDER_PARTY: '9908:123',
        PROVIDER_WEBHOOK_URL: 'http://localhost:3000/webhooks',
        PROVIDER_WEBHOOK_SECRET: 'whsec_x',
        PROVIDER_TIME_SCALE: '60',
      }),
    ).toEqual({
      port: 0,
      host: '0.0.0.0',
      adminToken: 'admin-secret',
      apiToken: 't',
      party: '9908:123',
      webhookUrl: 'http://localhost:3000/webhooks',
      webhookSecret: 'whsec_x',
      timeScale: 60,
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
  ])('rejects %s=%s naming the variable', (name, value) => {
    const load = () => loadProviderConfig({ [name]: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(new RegExp(`^${name}:`));
  });

  it('redacts the userinfo of a URL-like value in its error', () => {
    const load = () => loadProviderConfig({ PROVIDER_WEBHOOK_URL: 'ftp://u:PASSWORD@host/x' });
    expect(load).toThrow(/^PROVIDER_WEBHOOK_URL: "ftp:\/\/\[redacted\]@host\/x"/);
    expect(load).not.toThrow(/PASSWORD/);
  });
});
