import { describe, expect, it } from 'vitest';
import { inheritableExecArgv } from '../../../../src/consumer/store/sqlite/writer.ts';

describe('the options the SQLite writer thread inherits', () => {
  it('keeps loaders and diagnostics, drops main-script options and V8 flags', () => {
    expect(
      inheritableExecArgv([
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        'console.log(1)',
        '--cpu-prof',
        '--print',
        '2+2',
        '--enable-source-maps',
        '--expose-gc',
        '--max-old-space-size=100',
        '--cpu-prof-dir=/tmp/p',
      ]),
    ).toEqual(['--import', 'tsx', '--cpu-prof', '--enable-source-maps', '--cpu-prof-dir=/tmp/p']);
  });
});
