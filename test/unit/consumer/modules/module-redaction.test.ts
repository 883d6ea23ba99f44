/**
 * The redaction a fork module's output passes (modules/module-redaction.ts): what it throws
 * keeps its class and what the consumer reads of it (a PermanentImportError's reason, an
 * errno code, its causes) with no secret left in any string; what it logs reaches the log
 * without one; the module's own objects are not changed.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { PermanentImportError } from '../../../../src/consumer/importer/index.ts';
import { createModuleRedaction } from '../../../../src/consumer/modules/module-redaction.ts';
import { secretValues } from '../../../../src/consumer/modules/module-secrets.ts';
import { REMOTE_TEXT_LIMIT } from '../../../../src/consumer/text/error-text.ts';
import { describeError, localFault } from '../../../../src/consumer/worker/errors.ts';

const TOKEN = 'mod-token-7Hq2/Zx+81';
const redaction = createModuleRedaction([TOKEN]);
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('secretValues', () => {
  it('takes the secret settings, by list or by name, and the userinfo of URL-like values', () => {
    const values = secretValues(
      {
        ERP_URL: 'https://erp-user:p%40ss-word@erp.example',
        ERP_TOKEN: 'by-name-token',
        ERP_CLIENT: 'listed-client-pair',
        ERP_REGION: 'eu-north',
        ERP_UNSET: undefined,
      },
      ['ERP_CLIENT'],
    );
    expect(values.sort()).toEqual(
      [
        'by-name-token',
        'listed-client-pair',
        'erp-user:p%40ss-word',
        'erp-user:p@ss-word',
        'p%40ss-word',
        'p@ss-word',
      ].sort(),
    );
  });
});

describe('the redaction of what a module throws', () => {
  it('keeps a PermanentImportError one, its reason hidden, printable and bounded', () => {
    const original = new PermanentImportError(
      `the ERP refused: credential ${b64(`Bearer ${TOKEN}`)}\n${'x'.repeat(2000)}`,
    );
    const copy = redaction.error(original) as PermanentImportError;
    expect(copy).toBeInstanceOf(PermanentImportError);
    expect(copy.name).toBe('PermanentImportError');
    // "QmVhcmVyI" is "Bearer" and most of the space: the bits before the token.
    expect(copy.reason).toMatch(/^the ERP refused: credential QmVhcmVyI\[redacted\] x+…$/);
    expect(copy.reason).toHaveLength(REMOTE_TEXT_LIMIT);
    expect(copy.message).toBe(copy.reason);
    expect(copy.stack?.split('\n')[0]).toBe(`PermanentImportError: ${copy.reason}`);
    expect(copy.stack).toContain('module-redaction.test.ts');
    // The module's own error is left as it threw it.
    expect(original.reason).toContain(b64(`Bearer ${TOKEN}`));
  });

  it('hides the secret in causes, fields and nested objects, and keeps the codes', () => {
    const disk = Object.assign(new Error(`write /erp/${TOKEN}: no space`), { code: 'ENOSPC' });
    const upstream = Object.assign(new Error('request failed', { cause: disk }), {
      status: 401,
      config: { headers: { Authorization: `Bearer ${TOKEN.toUpperCase()}` } },
      url: new URL(`https://erp:${encodeURIComponent(TOKEN)}@erp.example/documents`),
    });
    const thrown = new AggregateError([upstream, `token=${encodeURIComponent(TOKEN)}`], '');
    const copy = redaction.error(thrown) as AggregateError;
    expect(copy).toBeInstanceOf(AggregateError);
    const [first, second] = copy.errors as [Omit<typeof upstream, 'url'> & { url: string }, string];
    expect(first.status).toBe(401);
    expect(first.config.headers.Authorization).toBe('Bearer [redacted]');
    expect(first.url).toBe('https://[redacted]@erp.example/documents');
    expect((first.cause as Error).message).toBe('write /erp/[redacted]: no space');
    expect(second).toBe('token=[redacted]');
    expect(localFault(copy.errors[0])).toMatch(/^ENOSPC/);
    expect(JSON.stringify(copy, Object.getOwnPropertyNames(copy))).not.toContain('mod-token');
    expect(describeError(first)).toBe(
      'Error: request failed <- Error: write /erp/[redacted]: no space',
    );
  });

  it('copies an error whose prototype reads from internal slots (a DOMException)', () => {
    const abort = new DOMException(`aborted while sending ${TOKEN}`, 'AbortError');
    const copy = redaction.error(abort) as DOMException;
    expect(copy).toBeInstanceOf(DOMException);
    expect(copy.name).toBe('AbortError');
    expect(describeError(copy)).toBe('AbortError: aborted while sending [redacted]');
  });

  it('guard() rethrows the redacted copy, and passes results through', async () => {
    await expect(redaction.guard(() => 'fine')).resolves.toBe('fine');
    await expect(
      redaction.guard(async () => {
        throw new Error(`401 for ${TOKEN}`);
      }),
    ).rejects.toThrow(/^401 for \[redacted\]$/);
  });
});

describe('the logger a module is given', () => {
  it('hides the secret in messages, arguments, fields, errors and child bindings', () => {
    const lines: string[] = [];
    const root = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
    const logger = redaction.logger(root).child({ erp: `https://x:${TOKEN}@erp.example` });
    logger.info({ answer: `echo ${TOKEN}` }, 'the ERP said %s', b64(TOKEN));
    logger.warn({ err: new Error(`refused ${TOKEN}`) }, `message with ${TOKEN}`);
    logger.child({ header: `Bearer ${TOKEN}` }).error(new Error(TOKEN.toLowerCase()));
    logger.debug('plain');
    expect(lines).toHaveLength(4);
    const text = lines.join('\n');
    expect(text).not.toContain('mod-token');
    expect(text).not.toContain(b64(TOKEN).slice(0, 12));
    expect(text).toContain('https://[redacted]@erp.example');
    expect(JSON.parse(lines[1] as string)).toMatchObject({
      msg: 'message with [redacted]',
      err: { type: 'Error', message: 'refused [redacted]' },
    });
    expect(logger.isLevelEnabled('debug')).toBe(true);
  });
});

describe('stored text of a module', () => {
  it('is hidden, printable and at most REMOTE_TEXT_LIMIT, whatever the cut leaves', () => {
    const joined = redaction.stored(`refused ${TOKEN.slice(0, 5)}\u0000${TOKEN.slice(5)}`);
    expect(joined).toBe('refused [redacted]');
    const cut = redaction.stored(`${'x'.repeat(REMOTE_TEXT_LIMIT - 12)} Bearer ${TOKEN}`);
    expect(cut).not.toContain(TOKEN.slice(0, 4));
    expect(cut.length).toBeLessThanOrEqual(REMOTE_TEXT_LIMIT);
    expect(cut.endsWith('…')).toBe(true);
  });
});
