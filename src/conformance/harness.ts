/**
 * What the duty checks share: the simulator they run, the consumer they talk to, and the
 * evidence they read. The runner plays the service in two ways: through the simulator's own
 * dispatcher (real routing, signing, retries), and by posting events itself, signed with the
 * protocol's code, when a scenario needs an order, a duplicate or a fault the service would
 * only produce by chance. Every answer the consumer gives is recorded for the answer-time duty.
 *
 * Each answer is judged against its own deadline, the service's 5 s. The runner's posts go out
 * one after another (`send`), the next once the one before was answered or SEND_GAP_MS passed:
 * a consumer that answers in milliseconds gets them strictly in turn, and one slower than the
 * limit costs the run the gap per post, not 5 s, while its answers are still timed to the end.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { pollUntil } from '../check-runner/poll-until.ts';
import { callSimulatorAdmin } from '../check-runner/simulator-admin.ts';
import {
  credentialHeader,
  signatureHeader,
  WEBHOOK_CONTENT_TYPE,
  WEBHOOK_RESPONSE_TIMEOUT_MS,
  WEBHOOK_SUCCESS_STATUSES,
  WEBHOOK_USER_AGENT,
  type WebhookEnvelope,
} from '../protocol/index.ts';
import type { ApiCall } from '../provider/api/call-log.ts';
import type { RunningProvider } from '../provider/provider.ts';
import type { Category, Rule } from '../provider/webhooks/index.ts';
import type { ConformanceOptions } from './options.ts';

export interface Answer {
  /** What was sent, in a few words. */
  what: string;
  status?: number;
  error?: string;
  /** No answer within the 5 s limit: the consumer was reached, and too slow. */
  timedOut?: boolean;
  ms: number;
}

/** A post on its way: its answer comes when it comes, up to the 5 s limit. */
export interface Sent {
  answer: Promise<Answer>;
  /** The answer, when it came before the runner went on. */
  early?: Answer;
}

/**
 * How long `send` waits for an answer before the next post may go. Long enough for a request
 * to reach a consumer on the same machine, so posts still arrive in the order they were sent.
 */
export const SEND_GAP_MS = 250;

export interface PostOptions {
  /** What the post is, for the evidence. */
  what: string;
  /** Signature header value; null sends none. @default signed with the secret, now */
  signature?: string | null;
  /** @default true */
  credential?: boolean;
  /** Counted by the answer-time duty (only posts a consumer must accept). @default true */
  expectAccepted?: boolean;
}

export interface Harness {
  options: ConformanceOptions;
  provider: RunningProvider;
  party: string;
  endpointId: string;
  /** Answers to posts a consumer must accept, for the answer-time duty. */
  accepted: Answer[];
  /** Posts `body` to the consumer as the service would, signed unless told otherwise. */
  post(body: string, options: PostOptions): Promise<Answer>;
  /** Starts `post` and returns once it is answered or SEND_GAP_MS passed, whichever is first. */
  send(body: string, options: PostOptions): Promise<Sent>;
  /** Resolves once every post made so far has its answer (or its timeout). */
  settled(): Promise<void>;
  sign(body: string, timestamp?: number, secrets?: string[]): string;
  /** The consumer's messaging API calls about a message, oldest first. */
  calls(messageId: string): ApiCall[];
  /** Every call, oldest first. */
  allCalls(): ApiCall[];
  /** Polls `check` until it returns a value; undefined after the timeout. */
  until<T>(check: () => T | undefined | false, timeoutMs?: number): Promise<T | undefined>;
  /** Runs `work` with both categories routed to "not sent"; the old rules come back after. */
  hidden<T>(work: () => Promise<T>): Promise<T>;
  /** A counterparty's invoice to the participant; resolves once validated and delivered. */
  inbound(invoice?: Record<string, unknown>): Promise<string>;
  /** The events the simulator published about a message for the participant, oldest first. */
  events(messageId: string): WebhookEnvelope[];
  /** The exact bytes the dispatcher sent (or would have sent) for an event. */
  body(eventId: string): string;
  /** Redelivers exhausted events, in order (after a hidden phase). */
  release(eventIds: string[]): void;
  admin<T = unknown>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T>;
}

export function createHarness(
  options: ConformanceOptions,
  provider: RunningProvider,
  endpointId: string,
): Harness {
  const party = provider.provider.model.participants.sandbox.identifier;
  const { dispatcher, callLog, model } = provider.provider;
  const accepted: Answer[] = [];
  const inFlight = new Set<Promise<Answer>>();
  const credential =
    options.credential === undefined ? undefined : credentialHeader(options.credential);

  const harness: Harness = {
    options,
    provider,
    party,
    endpointId,
    accepted,

    sign(body, timestamp = Math.floor(Date.now() / 1000), secrets = [options.secret]) {
      return signatureHeader({ secrets, timestamp, body });
    },

    async post(body, postOptions) {
      const headers: Record<string, string> = {
        'content-type': WEBHOOK_CONTENT_TYPE,
        'user-agent': WEBHOOK_USER_AGENT,
      };
      const signature =
        postOptions.signature === undefined ? harness.sign(body) : postOptions.signature;
      if (signature !== null) headers['svc-webhook-signature'] = signature;
      try {
        const envelope = JSON.parse(body) as Partial<WebhookEnvelope>;
        if (typeof envelope.eventId === 'string')
          headers['svc-webhook-event-id'] = envelope.eventId;
        if (typeof envelope.action === 'string') headers['svc-webhook-action'] = envelope.action;
        if (typeof envelope.transfer === 'string')
          headers['svc-webhook-transfer'] = envelope.transfer;
      } catch {
        // Not JSON: sent as it is.
      }
      if (credential !== undefined && postOptions.credential !== false) {
        headers[credential.name] = credential.value;
      }
      const started = performance.now();
      const answer: Answer = { what: postOptions.what, ms: 0 };
      const deadline = AbortSignal.timeout(WEBHOOK_RESPONSE_TIMEOUT_MS);
      const answered = (async () => {
        try {
          const res = await request(options.url, {
            method: 'POST',
            headers,
            body,
            signal: deadline,
          });
          await res.body.dump();
          answer.status = res.statusCode;
        } catch (error) {
          if (deadline.aborted) {
            answer.timedOut = true;
            answer.error = `no answer within ${WEBHOOK_RESPONSE_TIMEOUT_MS / 1000} s`;
          } else {
            answer.error = error instanceof Error ? error.message : String(error);
          }
        }
        answer.ms = Math.round(performance.now() - started);
        if (postOptions.expectAccepted !== false) accepted.push(answer);
        return answer;
      })();
      inFlight.add(answered);
      answered.finally(() => inFlight.delete(answered));
      return answered;
    },

    async send(body, postOptions) {
      const answer = harness.post(body, postOptions);
      const early = await Promise.race([answer, delay(SEND_GAP_MS).then(() => undefined)]);
      return early === undefined ? { answer } : { answer, early };
    },

    async settled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    calls: (messageId) => callLog.list({ messageId }),
    allCalls: () => callLog.list(),

    until: (check, timeoutMs = options.timeoutMs) => pollUntil(check, timeoutMs),

    async hidden(work) {
      const saved = dispatcher.getRouting(party);
      const categories: Category[] = ['inbound', 'outbound'];
      for (const category of categories) {
        dispatcher.setRules(party, category, [{ target: null }]);
      }
      try {
        return await work();
      } finally {
        for (const category of categories) {
          dispatcher.setRules(party, category, saved[category].map(ruleInput));
        }
      }
    },

    async inbound(invoice) {
      const { messageId } = await harness.admin<{ messageId: string }>(
        'POST',
        '/messages/inbound',
        invoice === undefined ? {} : { invoice },
      );
      // Validation and delivery run on the simulator's next tick.
      await harness.until(
        () =>
          harness
            .events(messageId)
            .some((e) => e.transfer === 'inbound' && e.action === 'deliveryNotified'),
        5_000,
      );
      return messageId;
    },

    events: (messageId) => model.messages.get(messageId).events.filter((e) => e.party === party),

    body(eventId) {
      const detail = dispatcher.delivery(eventId);
      if (detail === undefined) throw new Error(`no event ${eventId} in the delivery log`);
      return detail.body;
    },

    release(eventIds) {
      for (const eventId of eventIds) dispatcher.redeliver(eventId);
    },

    admin: (method, path, body) =>
      callSimulatorAdmin<never>(
        provider.url,
        { method, path, body },
        (status, text) => new Error(`simulator ${method} /admin${path}: ${status} ${text}`),
      ),
  };
  return harness;
}

function ruleInput(rule: Rule) {
  return {
    ...(rule.filter === undefined ? {} : { filter: rule.filter }),
    target: rule.target,
    statusEventsForOwnChanges: rule.statusEventsForOwnChanges,
  };
}

export const isSuccess = (answer: Answer) =>
  answer.status !== undefined && WEBHOOK_SUCCESS_STATUSES.has(answer.status);

/** `GET /messages/x/documents/core 200 at 12:00:00.123`, for the evidence. */
export function describeCall(call: ApiCall): string {
  return `${call.method} ${call.path} ${call.status ?? '(no answer)'}`;
}

/** No answer at all, and not for being slow: the connection was refused, reset or never made. */
export const isUnreachable = (answer: Answer) =>
  answer.status === undefined && answer.timedOut !== true;

export function describeAnswer(answer: Answer): string {
  if (answer.status !== undefined) return `${answer.what} -> ${answer.status} in ${answer.ms} ms`;
  if (answer.timedOut === true) return `${answer.what} -> ${answer.error}`;
  return `${answer.what} -> ${answer.error ?? 'no answer'} after ${answer.ms} ms`;
}
