/**
 * docs/rules.md cannot go stale: every rule names at least one test, every test it names exists
 * under that title, every link in it and in the other docs pages reaches an anchor, and every
 * anchored section of the pages describing the service is the home of at least one rule (or is
 * listed in rules.md as described but not a rule).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DUTY_IDS } from '../../../src/conformance/runner.ts';

const ROOT = join(import.meta.dirname, '../../..');
const DOCS = join(ROOT, 'docs');
const read = (file: string) => readFileSync(join(DOCS, file), 'utf8');
const RULE_PAGES = [
  'events.md',
  'statuses.md',
  'signature.md',
  'retries.md',
  'webhook-endpoints.md',
  'consumer-duties.md',
];
const PAGES = [
  ...RULE_PAGES,
  'README.md',
  'messaging-api.md',
  'decisions.md',
  'conformance.md',
  'peppol.md',
  'rules.md',
];

interface Row {
  id: string;
  doc: string;
  tests: { file: string; title: string }[];
}

function rows(): Row[] {
  return read('rules.md')
    .split('\n')
    .filter((line) => line.startsWith('| <a id='))
    .map((line) => {
      const cells = line.split(' | ');
      const id = /`([^`]+)`/.exec(cells[0] ?? '')?.[1] ?? '';
      const doc = /\]\(([^)]+)\)/.exec(cells[2] ?? '')?.[1] ?? '';
      const tests = (cells[3] ?? '')
        .replace(/ \|$/, '')
        .split('<br>')
        .map((entry) => /^`([^`]+)` › (.+)$/.exec(entry.trim()))
        .map((m) => ({ file: m?.[1] ?? '', title: m?.[2] ?? '' }));
      return { id, doc, tests };
    });
}

function anchors(file: string): Set<string> {
  return new Set([...read(file).matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1] as string));
}

describe('docs/rules.md', () => {
  it('has rules, each with a unique id and at least one test', () => {
    const all = rows();
    expect(all.length).toBeGreaterThanOrEqual(50);
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    for (const row of all) expect(row.tests.length, row.id).toBeGreaterThan(0);
  });

  it('names only tests that exist, by their file and the start of their title', () => {
    const missing: string[] = [];
    for (const row of rows()) {
      for (const { file, title } of row.tests) {
        const path = join(ROOT, file);
        const source = existsSync(path) ? readFileSync(path, 'utf8') : '';
        const found = ["'", '"', '`'].some((quote) => source.includes(`${quote}${title}`));
        if (!found) missing.push(`${row.id}: ${file} › ${title}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('links every rule to an anchor that exists', () => {
    const broken = rows().filter((row) => {
      const [file, anchor] = row.doc.split('#');
      return !PAGES.includes(file ?? '') || !anchors(file ?? '').has(anchor ?? '');
    });
    expect(broken.map((r) => `${r.id}: ${r.doc}`)).toEqual([]);
  });

  it('gives every anchored section of the service pages a rule, or says it holds none', () => {
    const homes = new Set(rows().map((r) => r.doc));
    const exempt = new Set(
      [...read('rules.md').matchAll(/^- \[([^\]]+)\]\(/gm)].map((m) => m[1] as string),
    );
    const bare = RULE_PAGES.flatMap((file) =>
      [...anchors(file)].map((anchor) => `${file}#${anchor}`),
    ).filter((where) => !homes.has(where) && !exempt.has(where));
    expect(bare).toEqual([]);
  });
});

describe('links between the docs pages', () => {
  it('reach an anchor that exists', () => {
    const pages = readdirSync(DOCS).filter((file) => file.endsWith('.md'));
    const broken: string[] = [];
    for (const page of pages) {
      for (const m of read(page).matchAll(/\]\(([a-zA-Z-]+\.md)#([^)]+)\)/g)) {
        const [, file, anchor] = m as unknown as [string, string, string];
        if (!pages.includes(file) || !anchors(file).has(anchor))
          broken.push(`${page}: ${file}#${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the conformance duties are the runner’s, and each points at a described duty', () => {
    const section = read('conformance.md').split('## The duties')[1]?.split('\n## ')[0] ?? '';
    const listed = section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) =>
        [...(line.split(' | ')[0] ?? '').matchAll(/`([a-z.-]+)`/g)].map((m) => m[1]),
      );
    expect(new Set(listed)).toEqual(new Set(DUTY_IDS));
  });
});
