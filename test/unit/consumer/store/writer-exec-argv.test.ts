import { describe, expect, it } from 'vitest';
import { inheritableExecArgv } from '../../../../src/consumer/store/sqlite/writer.ts';

describe('the options the SQLite writer thread inherits', () => {
  it('keeps loaders and diagnostics, drops what only a main script may have', () => {
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
      ]),
    ).toEqual(['--import', 'tsx', '--cpu-prof', '--enable-source-maps']);
  });
});
