/**
 * SINK_MODULE=erp-http: the example status sink. Each status change is posted to an ERP's HTTP
 * API, the same ERP the example importer (src/importers/erp-http.ts) books documents in:
 *
 *   POST {SINK_ERP_URL}/status-changes   the StatusNotice as JSON, with
 *                                        `Idempotency-Key: <notice.id>`; any 2xx is delivered
 *
 * The ERP keeps each key once, so the notice the consumer sends again after a crash (the ERP
 * had it, the consumer's record of that did not survive) is answered 2xx and stored nothing.
 * Anything else (a 4xx, a 5xx, a timeout, a cut connection) throws, and the consumer tries
 * again later, with backoff. The consumer's signal (its delivery deadline, SINK_DELIVERY_TIMEOUT_MS,
 * or a shutdown) ends the call too, so a hanging ERP holds no connection past it. The error says the status or the cause and the ERP's text,
 * printable and bounded; never the token.
 *
 * The ERP stand-in in test/support/erp-standin.ts speaks this API too (`npm run erp-standin`).
 */
import { request } from 'undici';
import {
  defineStatusSink,
  printableText,
  readBounded,
  redactUserinfo,
  type StatusSink,
  z,
} from '../consumer/sink/index.ts';

const settings = z.object({
  /** The ERP's API, e.g. https://erp.example.com/api. */
  SINK_ERP_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  /** Bearer token for the ERP's API; none is sent when unset. */
  SINK_ERP_TOKEN: z.string().min(1).optional(),
});

export type ErpHttpSinkSettings = z.output<typeof settings>;

/** Longest wait for the answer's headers, and for each next piece of its body. */
export const SINK_ERP_TIMEOUT_MS = 10_000;
/** Deadline of one whole call (connect, send, headers, body), whatever the consumer's. */
const CALL_DEADLINE_MS = 30_000;
/** The start of an answer's body: enough for an error message, bounded whatever is sent. */
const MAX_ANSWER_BYTES = 64 * 1024;

export function createErpHttpSink(options: ErpHttpSinkSettings): StatusSink {
  const base = options.SINK_ERP_URL.replace(/\/+$/, '');
  const url = `${base}/status-changes`;
  const shownUrl = redactUserinfo(url);
  const token = options.SINK_ERP_TOKEN;
  // Belt and braces: whatever a library puts in its message, the token never leaves in one.
  const hide = (text: string) =>
    token === undefined ? text : text.replaceAll(token, '[redacted]');

  return {
    async deliver(notice, delivery) {
      const deadline = AbortSignal.timeout(CALL_DEADLINE_MS);
      const signal =
        delivery === undefined ? deadline : AbortSignal.any([delivery.signal, deadline]);
      let status: number;
      let text: string;
      try {
        const answer = await request(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'idempotency-key': notice.id,
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          },
          body: JSON.stringify(notice),
          headersTimeout: SINK_ERP_TIMEOUT_MS,
          bodyTimeout: SINK_ERP_TIMEOUT_MS,
          signal,
        });
        status = answer.statusCode;
        text = await readBounded(answer.body, MAX_ANSWER_BYTES);
      } catch (error) {
        const cause = error as Error & { code?: string };
        const said = printableText(cause.message || String(error), 200);
        throw new Error(
          hide(
            `POST ${shownUrl} failed: ${cause.code ? `${cause.code}: ` : ''}${said || cause.name}`,
          ),
        );
      }
      if (status >= 200 && status < 300) return;
      const shown = printableText(text);
      throw new Error(
        hide(`POST ${shownUrl}: the ERP answered ${status}${shown === '' ? '' : `: ${shown}`}`),
      );
    },
  };
}

export default defineStatusSink({
  settings,
  // Hidden by the consumer in every error and log line of this sink, in any encoding an ERP
  // may echo it in (the hide() above only catches it as sent), as is SINK_ERP_URL's userinfo.
  secrets: ['SINK_ERP_TOKEN'],
  describe: (s) =>
    `status changes are posted to the ERP at ${redactUserinfo(s.SINK_ERP_URL.replace(/\/+$/, ''))}/status-changes`,
  create: ({ settings: s }) => createErpHttpSink(s),
});
