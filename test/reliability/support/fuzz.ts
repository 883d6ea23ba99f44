/**
 * The seed of every fuzzing run in test/reliability: fixed, so a failure replays exactly.
 * RELIABILITY_SEED explores other inputs (`RELIABILITY_SEED=7 npx vitest run test/reliability`);
 * a seed that fails is a defect, fixed with that seed kept as a test.
 */
export const FUZZ_SEED = Number(process.env.RELIABILITY_SEED ?? 20_261_124);

/** mulberry32: a small seeded PRNG for the tests' own random choices (kill moments, shuffles). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher-Yates with a seeded PRNG: the same seed, the same order. */
export function shuffle<T>(items: readonly T[], next: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}
