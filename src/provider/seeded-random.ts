/**
 * mulberry32: a small seeded PRNG, so that a run's random choices (which calls a fault hits,
 * which moment a test kills a process, how it shuffles) can be replayed from its seed. Not for
 * anything secret.
 */
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
