/**
 * The seed of every fuzzing run in test/reliability: fixed, so a failure replays exactly.
 * RELIABILITY_SEED explores other inputs (`RELIABILITY_SEED=7 npx vitest run test/reliability`);
 * a seed that fails is a defect, fixed with that seed kept as a test.
 */
export const FUZZ_SEED = Number(process.env.RELIABILITY_SEED ?? 20_261_124);

// The simulator's seeded PRNG (its faults draw from it too).
export { seededRandom } from '../../../src/provider/seeded-random.ts';

/** Fisher-Yates with a seeded PRNG: the same seed, the same order. */
export function shuffle<T>(items: readonly T[], next: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}
