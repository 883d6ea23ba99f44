import { describe, expect, it } from 'vitest';
import { printableText, REMOTE_TEXT_LIMIT } from '../../../../src/consumer/text/error-text.ts';
import { describeError } from '../../../../src/consumer/worker/errors.ts';

describe('printableText', () => {
  it.each([
    ['colour codes', '\u001b[1;31mE-042\u001b[0m rejected', 'E-042 rejected'],
    ['a title escape (OSC)', 'a\u001b]0;owned\u0007b', 'ab'],
    ['a C1 CSI', 'a\u009b2Jb', 'ab'],
    ['line breaks and tabs, as one space', 'line 1\r\n\tline 2\u2028end', 'line 1 line 2 end'],
    ['NUL, DEL and other controls', 'a\u0000b\u007fc\u0085d\u0001e', 'abc de'],
    ['a lone surrogate, as U+FFFD', 'a\ud800b', 'a\ufffdb'],
    ['nothing in plain text', 'ä ö 😀 "quoted"', 'ä ö 😀 "quoted"'],
  ])('removes %s', (_what, text, printable) => {
    expect(printableText(text)).toBe(printable);
  });

  it('cuts to the limit with an ellipsis, never through a surrogate pair', () => {
    expect(printableText('x'.repeat(60_000))).toBe(`${'x'.repeat(REMOTE_TEXT_LIMIT - 1)}…`);
    const emoji = printableText(`${'x'.repeat(REMOTE_TEXT_LIMIT - 2)}😀 and more`);
    expect(emoji).toBe(`${'x'.repeat(REMOTE_TEXT_LIMIT - 2)}…`);
    expect(emoji.isWellFormed()).toBe(true);
  });
});

describe('describeError', () => {
  it("keeps another system's escape codes and line breaks out of a stored lastError", () => {
    const error = new Error('ERP answered 500: \u001b[31mdown\u001b[0m\nretry later\u0000');
    expect(describeError(error)).toBe('Error: ERP answered 500: down retry later');
  });
});
