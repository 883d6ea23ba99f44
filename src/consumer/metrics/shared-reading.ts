/**
 * One store read for all the gauges of a scrape, which collects them at once: a caller that
 * comes while a read is in flight shares it; the next scrape reads again.
 */
export function sharedReading<T>(read: () => Promise<T>): () => Promise<T> {
  let reading: Promise<T> | undefined;
  return () => {
    reading ??= read().finally(() => {
      reading = undefined;
    });
    return reading;
  };
}
