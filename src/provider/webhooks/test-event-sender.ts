/**
 * Test events (docs/webhook-endpoints.md#test-events) as the dispatcher sends them: straight to the chosen
 * endpoint, routing not applied, signed with its secret and carrying its credential, once (no
 * retries, no delivery log). A preview generates the event and keeps it, so that exactly the
 * previewed bytes are sent when the user confirms; previews not sent are forgotten after
 * MAX_PREVIEWS newer ones.
 */
import type { WebhookEnvelope } from '../../protocol/index.ts';
import type { Clock } from '../clock.ts';
import { redactCredentialHeaders, scrubOutcome } from './credential-redaction.ts';
import { sendInDeliverySpan } from './delivery-span.ts';
import type { EndpointRegistry } from './endpoints.ts';
import { TestEventError } from './errors.ts';
import { type AttemptOutcome, buildWebhookRequest, type WebhookRequest } from './send-webhook.ts';
import {
  buildTestEnvelope,
  CATEGORY_ACTIONS,
  DEFAULT_TEST_ACTION,
  testEventHint,
} from './test-event.ts';
import {
  CATEGORIES,
  type Category,
  type Rule,
  type TestEventInput,
  type TestEventPreview,
  type TestEventResult,
  type TestEventSendInput,
} from './types.ts';

/** Previews kept for sending; a console previews on every change of its form. */
const MAX_PREVIEWS = 100;

export interface TestEventSender {
  preview(party: string, endpointId: string, input: TestEventInput): TestEventPreview;
  send(party: string, endpointId: string, input: TestEventSendInput): Promise<TestEventResult>;
}

export function createTestEventSender(deps: {
  endpoints: EndpointRegistry;
  rulesOf: (party: string) => Record<Category, Rule[]>;
  clock: Clock;
  randomId: () => string;
  /** One attempt, over the dispatcher's connection pool. */
  send: (request: WebhookRequest) => Promise<AttemptOutcome>;
}): TestEventSender {
  const { endpoints, clock } = deps;
  const previews = new Map<
    string,
    { party: string; endpointId: string; envelope: WebhookEnvelope }
  >();

  function generate(
    party: string,
    endpointId: string,
    input: TestEventInput,
  ): { envelope: WebhookEnvelope; category: Category } {
    endpoints.get(party, endpointId);
    const rules = deps.rulesOf(party);
    const category =
      input.category ??
      CATEGORIES.find((c) => rules[c].some((rule) => rule.target === endpointId)) ??
      'inbound';
    if (!CATEGORIES.includes(category)) {
      throw new TestEventError('category', `category must be one of ${CATEGORIES.join(', ')}`);
    }
    const action = input.action ?? DEFAULT_TEST_ACTION;
    if (!CATEGORY_ACTIONS[category].includes(action)) {
      throw new TestEventError(
        'action',
        `action ${action} does not belong to ${category}; use one of ${CATEGORY_ACTIONS[category].join(', ')}`,
      );
    }
    const envelope = buildTestEnvelope({
      party,
      category,
      action,
      randomId: deps.randomId,
      nowMs: clock.now(),
    });
    return { envelope, category };
  }

  /** The previewed event, once: a second send of it is refused. */
  function takePreview(party: string, endpointId: string, eventId: string): WebhookEnvelope {
    const preview = previews.get(eventId);
    if (preview === undefined || preview.party !== party || preview.endpointId !== endpointId) {
      throw new TestEventError(
        'eventId',
        `no previewed test event ${eventId} for this endpoint; preview one first`,
      );
    }
    previews.delete(eventId);
    return preview.envelope;
  }

  return {
    preview(party, endpointId, input) {
      const { envelope, category } = generate(party, endpointId, input);
      previews.set(envelope.eventId, { party, endpointId, envelope });
      for (const eventId of previews.keys()) {
        if (previews.size <= MAX_PREVIEWS) break;
        previews.delete(eventId);
      }
      return {
        category,
        action: envelope.action,
        actions: CATEGORY_ACTIONS[category],
        eventId: envelope.eventId,
        body: JSON.stringify(envelope),
      };
    },

    async send(party, endpointId, input) {
      const endpoint = endpoints.get(party, endpointId);
      const envelope =
        input.eventId === undefined
          ? generate(party, endpointId, input).envelope
          : takePreview(party, endpointId, input.eventId);
      const request = buildWebhookRequest({
        envelope,
        body: JSON.stringify(envelope),
        endpoint,
        nowMs: clock.now(),
      });
      const sent = await sendInDeliverySpan({ request, envelope, attempt: 1 }, deps.send);
      const result = scrubOutcome(sent, endpoint.credential);
      const hint = result.success ? undefined : testEventHint(result);
      return {
        ...result,
        ...(hint === undefined ? {} : { hint }),
        // The result is shown in the admin API and the console: never the credential.
        request: {
          headers: redactCredentialHeaders(request.headers, endpoint.credential),
          body: request.body,
        },
      };
    },
  };
}
