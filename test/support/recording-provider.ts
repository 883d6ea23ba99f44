/**
 * The embedded provider as the tests run it beside a consumer: silent, on a free port, and with
 * every event it publishes also recorded (its tap), so that a test can post a webhook the
 * service really sent, or wait for one.
 */
import { pino } from 'pino';
import type { WebhookEnvelope } from '../../src/protocol/index.ts';
import {
  type RunningProvider,
  type StartProviderOptions,
  startProvider,
} from '../../src/provider/provider.ts';

export interface RecordingProvider extends RunningProvider {
  /** Every event the provider published so far, in order, whether or not it was delivered. */
  published: WebhookEnvelope[];
}

/** Starts the provider with `options` (which may replace the silent logger, not the tap). */
export async function startRecordingProvider(
  options: StartProviderOptions = {},
): Promise<RecordingProvider> {
  const published: WebhookEnvelope[] = [];
  const running = await startProvider({
    logger: pino({ level: 'silent' }),
    ...options,
    tap: { publish: (envelope) => published.push(envelope) },
  });
  return Object.assign(running, { published });
}

/**
 * The deliveryNotified event the provider published to `party` for `messageId`, once it has
 * (it publishes just after it answers the admin call that made the message); fails after 5 s.
 */
export async function publishedDeliveryNotified(
  provider: RecordingProvider,
  messageId: string,
  party: string,
): Promise<WebhookEnvelope> {
  for (let i = 0; i < 200; i++) {
    const notified = provider.published.find(
      (e) => e.messageId === messageId && e.action === 'deliveryNotified' && e.party === party,
    );
    if (notified !== undefined) return notified;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no deliveryNotified for ${messageId}`);
}
