/** Waits for something a check sees happen: the consumer's outbox drained, an event sent. */

/** Polls `check` every `intervalMs` until it returns a value; undefined after `timeoutMs`. */
export async function pollUntil<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
  intervalMs = 20,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
