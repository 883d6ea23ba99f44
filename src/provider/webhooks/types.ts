/** Shapes the dispatcher takes and returns; the admin routes send them as JSON unchanged. */
import type { Transfer } from '../../protocol/index.ts';

/** The optional credential an endpoint receives besides the signature (SPEC.md section 5.2). */
export type Credential =
  | { type: 'bearer'; token: string }
  | { type: 'basic'; username: string; password: string }
  | { type: 'header'; name: string; value: string };

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
}

/** A routing rule as given to setRules (SPEC.md section 2.7). */
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

export interface TestEventResult {
  statusCode?: number;
  error?: string;
  responseTimeMs: number;
  bodyStart: string;
  /** True when the endpoint answered 200, 201, 202 or 204 within 5 seconds. */
  success: boolean;
  /** Exactly what was sent, so the user can compare it with what the endpoint received. */
  request: { headers: Record<string, string>; body: string };
}
