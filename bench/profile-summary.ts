/**
 * Where the time goes, from V8 CPU profiles (`node --cpu-prof`, one file per thread): the share
 * of samples per part of the system. A sample in a native or library frame counts for the
 * nearest caller whose module is known, so SQLite's native calls count as the store, undici's
 * parsing as the API client, and so on.
 */
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const PARTS: Array<[string, RegExp]> = [
  ['store (SQLite)', /\/src\/consumer\/store\/|better-sqlite3/],
  ['messaging API client', /\/src\/consumer\/api\/|undici/],
  ['importer (files)', /\/src\/consumer\/importer\//],
  ['worker and claims', /\/src\/consumer\/(worker|claims)\//],
  ['HTTP server', /\/src\/consumer\/http\/|\/express\/|\/router\/|node:_http|node:http/],
  ['protocol parsing', /\/src\/protocol\/|\/zod\//],
  ['logging', /\/pino/],
  ['file system', /node:internal\/fs|node:fs/],
];

export interface ThreadSummary {
  /** Sampled milliseconds. */
  ms: number;
  /** Share of samples per part, largest first; `idle` is time the thread waited. */
  parts: Array<{ part: string; share: number }>;
}

function partOf(url: string, name: string): string | undefined {
  if (name === '(idle)') return 'idle';
  if (name === '(garbage collector)') return 'garbage collection';
  for (const [part, pattern] of PARTS) if (pattern.test(url)) return part;
  return undefined;
}

export function summarizeProfile(profile: CpuProfile): ThreadSummary {
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const known = new Map<number, string>();
  const part = (id: number): string => {
    const cached = known.get(id);
    if (cached !== undefined) return cached;
    const node = byId.get(id);
    let found =
      node === undefined ? 'other' : partOf(node.callFrame.url, node.callFrame.functionName);
    if (found === undefined) {
      const up = parent.get(id);
      found = up === undefined ? 'other' : part(up);
    }
    known.set(id, found);
    return found;
  };
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    all += ms;
    totals.set(part(id), (totals.get(part(id)) ?? 0) + ms);
  });
  return {
    ms: Math.round(all),
    parts: [...totals.entries()]
      .map(([name, ms]) => ({ part: name, share: all === 0 ? 0 : ms / all }))
      .sort((a, b) => b.share - a.share),
  };
}

/** The profiles in `dir`, main thread first (the first file Node writes), then workers. */
export function summarizeProfiles(dir: string, keepIn?: string): ThreadSummary[] {
  if (keepIn !== undefined) cpSync(dir, keepIn, { recursive: true });
  return readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .sort()
    .map((name) =>
      summarizeProfile(JSON.parse(readFileSync(join(dir, name), 'utf8')) as CpuProfile),
    );
}
