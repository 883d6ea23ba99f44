/**
 * The collector of the traced scenarios: an OTLP/HTTP receiver on loopback, in a process of
 * its own like every server of the bench, that counts what the consumer exports (requests,
 * bytes) and discards it, decoding nothing: what tracing costs the consumer is the figure, not
 * what a collector does with the spans.
 */
import { startOtlpReceiver } from '../test/support/otlp-receiver.ts';
import { serveControl } from './server-control.ts';

const receiver = await startOtlpReceiver({ keep: false });
serveControl(receiver.url, () => receiver.close(), {
  received: async () => ({ requests: receiver.requests(), bytes: receiver.bytes() }),
});
