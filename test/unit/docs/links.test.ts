/**
 * Every relative link of the project's markdown (the README, the guides and pages of docs/, the
 * READMEs beside the code) reaches a file that exists, and an anchor that exists in it: the
 * README was split into guides (issue 24), and a link that breaks there sends a forker nowhere.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');

function markdownFiles(): string[] {
  const found = ['README.md', 'SECURITY.md', 'BENCHMARKS.md', 'CHANGELOG.md'].map((f) =>
    join(ROOT, f),
  );
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(path);
    }
  };
  for (const dir of ['docs', 'src', 'bench', 'test']) walk(join(ROOT, dir));
  return found.filter((path) => existsSync(path));
}

/** Explicit `<a id>` anchors and GitHub's heading slugs. */
function anchorsOf(path: string): Set<string> {
  const text = readFileSync(path, 'utf8');
  const anchors = new Set([...text.matchAll(/<a id="([^"]+)">/g)].map((m) => m[1] as string));
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = (m[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    anchors.add(slug);
  }
  return anchors;
}

describe('links in the markdown', () => {
  it('reach files and anchors that exist', () => {
    const files = markdownFiles();
    expect(files.length).toBeGreaterThan(20);
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] ?? '';
        if (/^[a-z]+:/.test(target)) continue;
        const [path = '', anchor] = target.split('#');
        const resolved = path === '' ? file : join(dirname(file), path);
        const where = `${relative(ROOT, file)}: ${target}`;
        if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
        else if (anchor !== undefined && resolved.endsWith('.md')) {
          if (!anchorsOf(resolved).has(anchor)) broken.push(`${where} (no such anchor)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
