/**
 * Configuration errors never echo a secret (issue 17, low): the consumer process is started
 * with bad values carrying credentials and must name the variable without showing them.
 */
import { describe, expect, it } from 'vitest';
import { runConsumerToExit, startConsumerProcess } from './support/consumer-process.ts';

const VALID = {
  WEBHOOK_SECRETS: 'whsec_security_config_0123456789',
  API_BASE_URL: 'http://127.0.0.1:9',
  API_TOKEN: 'security-test-token',
};

describe('configuration errors of the consumer process', () => {
  it.each([
    ['DATABASE_URL', 'postgresql:/app:PASSWORD-1@db/x'],
    ['DATABASE_URL', 'mysql://app:PASSWORD-1@db/x'],
    ['API_BASE_URL', 'http://app:PASSWORD-1@api.example.test'],
    ['API_BASE_URL', 'ftp://app:PASSWORD-1@api.example.test'],
  ])('%s=%s: exit 2, the variable named, the password redacted', async (name, value) => {
    const { code, output } = await runConsumerToExit({ ...VALID, [name]: value });
    expect(code).toBe(2);
    expect(output).toContain(name);
    expect(output).toContain('[redacted]@');
    expect(output).not.toContain('PASSWORD-1');
  });

  it('a short ADMIN_TOKEN or a malformed WEBHOOK_CREDENTIAL: named, never shown', async () => {
    const { code, output } = await runConsumerToExit({
      ...VALID,
      ADMIN_TOKEN: 'short-ADMIN-secret',
      WEBHOOK_CREDENTIAL: 'token=CREDENTIAL-secret',
    });
    expect(code).toBe(2);
    expect(output).toContain('ADMIN_TOKEN must be at least 32 characters');
    expect(output).toContain('WEBHOOK_CREDENTIAL must be');
    expect(output).not.toContain('ADMIN-secret');
    expect(output).not.toContain('CREDENTIAL-secret');
  });

  it('plain http:// to a remote API is refused unless API_ALLOW_INSECURE_HTTP=true', async () => {
    const refused = await runConsumerToExit({ ...VALID, API_BASE_URL: 'http://192.0.2.10' });
    expect(refused.code).toBe(2);
    expect(refused.output).toContain('API_BASE_URL must use https://');
  });

  it('a short signing secret starts the consumer with a warning that does not show it', async () => {
    const consumer = await startConsumerProcess({ ...VALID, WEBHOOK_SECRETS: 'tiny-SECRET' });
    try {
      expect(consumer.output()).toContain('WEBHOOK_SECRETS entry 1 of 1 is shorter than 16');
      expect(consumer.output()).not.toContain('tiny-SECRET');
    } finally {
      await consumer.stop();
    }
  });
});
