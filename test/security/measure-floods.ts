/**
 * Measures the consumer's memory under the issue 17 floods, for the before/after figures in
 * SECURITY.md. Not a test (the tests assert a bound); a tool to print the numbers:
 *
 *   node test/security/measure-floods.ts [path/to/src/main.ts]
 *
 * The argument lets the same attacks run against an older checkout of the consumer.
 */
import { startConsumerProcess } from './support/consumer-process.ts';
import { FLOODS, type Flood, MiB, measurePeak, readMemory } from './support/floods.ts';

const main = process.argv[2];
const secret = 'whsec_measure_floods_secret_0123456789';

async function measure(name: string, attack: Flood) {
  const consumer = await startConsumerProcess(
    {
      WEBHOOK_SECRETS: secret,
      API_BASE_URL: 'http://127.0.0.1:9',
      API_TOKEN: 'measure-token',
    },
    main === undefined ? {} : { main },
  );
  try {
    const url = `${consumer.url}/webhooks`;
    const idle = readMemory(consumer.pid).rss;
    const started = performance.now();
    const { result, peak } = await measurePeak(consumer.pid, () => attack(url));
    const seconds = (performance.now() - started) / 1000;
    const after = readMemory(consumer.pid).rss;
    const mib = (n: number) => Math.round((n / MiB) * 10) / 10;
    console.log(
      JSON.stringify({
        attack: name,
        idleMiB: mib(idle),
        peakMiB: mib(peak),
        growthMiB: mib(peak - idle),
        afterMiB: mib(after),
        seconds: Math.round(seconds * 10) / 10,
        ...result,
      }),
    );
  } finally {
    await consumer.stop();
  }
}

for (const { name, send } of Object.values(FLOODS)) await measure(name, send);
