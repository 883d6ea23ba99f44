/** Shapes the dispatcher takes and returns; the admin routes send them as JSON unchanged. */
import type { Transfer, WebhookCredential } from '../../protocol/index.ts';

/** The optional credential an endpoint receives besides the signature (docs/signature.md#credential). */
export type Credential = WebhookCredential;

export type Category = 'inbound' | 'outbound';
export const CATEGORIES: readonly Category[] = ['inbound', 'outbound'];

/** An endpoint as listed: the secret and the credential's values are never shown again. */
export interface EndpointView {
  id: string;
  name: string;
  url: string;
  credentialType: Credential['type'] | null;
  /** ISO 8601. */
  createdAt: string;
  /**
   * ISO 8601; present while a rotated-out secret is still valid (24 hours after the rotation),
   * during which every request carries a signature for each secret.
   */
  previousSecretExpiresAt?: string;
}

/** The test event asked for (docs/webhook-endpoints.md#test-events); every field is optional. */
export interface TestEventInput {
  /** @default the first category routed to the endpoint, else inbound */
  category?: Category;
  /** @default 'created' */
  action?: string;
}

/** A test event to send: a new one as TestEventInput says, or exactly a previewed one. */
export interface TestEventSendInput extends TestEventInput {
  /** The eventId of a preview of this endpoint: that event is sent, once. */
  eventId?: string;
}

/** A test event as it would be sent: the exact body, before anything goes over the wire. */
export interface TestEventPreview {
  /** The category used: the one asked for, else the first one routed to the endpoint. */
  category: Category;
  action: string;
  /** The actions of that category, for choosing another. */
  actions: readonly string[];
  /** Pass it to sendTestEvent to send exactly this body. */
  eventId: string;
  body: string;
}

/** A routing rule as given to setRules (docs/webhook-endpoints.md#routing). */
export interface RuleInput {
  /** Comma-separated `<document type>/<format>` pairs; `*` matches any value on either side. */
  filter?: string | null;
  /** Endpoint id, or null for "not sent". */
  target: string | null;
  /** Whether status events for the participant's own changes are sent. @default true */
  statusEventsForOwnChanges?: boolean;
}

/** A stored routing rule. */
export interface Rule {
  filter?: string;
  target: string | null;
  statusEventsForOwnChanges: boolean;
}

export type DeliveryState = 'pending' | 'succeeded' | 'exhausted';

export interface AttemptView {
  /** ISO 8601, by the dispatcher's clock. */
  at: string;
  /** The request headers sent; the credential's header shows `[redacted]`. */
  headers: Record<string, string>;
  statusCode?: number;
  /** Timeout or connection error text; absent when the endpoint answered. */
  error?: string;
  responseTimeMs: number;
  /** The first 200 characters of the response body. */
  bodyStart: string;
}

/** One event in the delivery log. */
export interface DeliveryView {
  eventId: string;
  party: string;
  action: string;
  transfer: Transfer;
  messageId: string;
  occurredAt: string;
  state: DeliveryState;
  /** Why the event was not sent or is exhausted. */
  reason?: string;
  /** The endpoint the event was routed to, absent when routing sent it nowhere. */
  endpointId?: string;
  attempts: AttemptView[];
  /** ISO 8601; present while a retry is scheduled. */
  nextAttemptAt?: string;
}

/** One event with the exact body every attempt sent (the same bytes, signed per attempt). */
export interface DeliveryDetail extends DeliveryView {
  body: string;
}

export interface TestEventResult {
  statusCode?: number;
  error?: string;
  responseTimeMs: number;
  bodyStart: string;
  /** True when the endpoint answered 200, 201, 202 or 204 within 5 seconds. */
  success: boolean;
  /** What to check, for the failures docs/webhook-endpoints.md#test-event-diagnostics explains (401/403, timeout, 404, TLS). */
  hint?: string;
  /** Exactly what was sent, so the user can compare it with what the endpoint received. */
  request: { headers: Record<string, string>; body: string };
}
