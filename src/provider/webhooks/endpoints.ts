/**
 * Webhook endpoints per participant (docs/webhook-endpoints.md#endpoints) with their signing secrets and
 * optional credential (section 5). Secrets rotate with a grace period: the replaced secret stays
 * valid for OLD_SECRET_VALIDITY_MS, during which requests carry a signature for each.
 */
import { randomBytes } from 'node:crypto';
import { credentialHeader, OLD_SECRET_VALIDITY_MS } from '../../protocol/index.ts';
import type { Clock } from '../clock.ts';
import { EndpointLimitError, EndpointNotFoundError, InvalidEndpointError } from './errors.ts';
import type { Credential, EndpointView } from './types.ts';

export const MAX_ENDPOINTS_PER_PARTY = 25;

export interface StoredEndpoint {
  id: string;
  party: string;
  name: string;
  url: string;
  credential?: Credential;
  secret: string;
  /** Replaced secrets still accepted until expiresAt (clock milliseconds). */
  retiredSecrets: { secret: string; expiresAt: number }[];
  createdAt: number;
}

export interface EndpointInput {
  name: string;
  url: string;
  credential?: Credential;
  /** Fixed secret, e.g. PROVIDER_WEBHOOK_SECRET at sandbox start; generated when absent. */
  secret?: string;
}

/** `whsec_` marks the value as a webhook secret when it turns up in a config file or a log. */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function createEndpointRegistry(options: { clock: Clock; randomId: () => string }) {
  const byParty = new Map<string, Map<string, StoredEndpoint>>();

  function partyEndpoints(party: string): Map<string, StoredEndpoint> {
    let endpoints = byParty.get(party);
    if (endpoints === undefined) {
      endpoints = new Map();
      byParty.set(party, endpoints);
    }
    return endpoints;
  }

  function get(party: string, endpointId: string): StoredEndpoint {
    const endpoint = byParty.get(party)?.get(endpointId);
    if (endpoint === undefined) throw new EndpointNotFoundError(party, endpointId);
    return endpoint;
  }

  return {
    create(party: string, input: EndpointInput): StoredEndpoint {
      validateEndpointInput(input);
      const endpoints = partyEndpoints(party);
      if (endpoints.size >= MAX_ENDPOINTS_PER_PARTY) {
        throw new EndpointLimitError(party, MAX_ENDPOINTS_PER_PARTY);
      }
      const endpoint: StoredEndpoint = {
        id: options.randomId(),
        party,
        name: input.name,
        url: input.url,
        secret: input.secret ?? generateSecret(),
        retiredSecrets: [],
        createdAt: options.clock.now(),
      };
      if (input.credential !== undefined) endpoint.credential = input.credential;
      endpoints.set(endpoint.id, endpoint);
      return endpoint;
    },
    /** In creation order, so "the first endpoint" stays first. */
    list(party: string): StoredEndpoint[] {
      return [...(byParty.get(party)?.values() ?? [])];
    },
    get,
    has(party: string, endpointId: string): boolean {
      return byParty.get(party)?.has(endpointId) ?? false;
    },
    rotate(party: string, endpointId: string): string {
      const endpoint = get(party, endpointId);
      const now = options.clock.now();
      endpoint.retiredSecrets = endpoint.retiredSecrets.filter((old) => old.expiresAt > now);
      endpoint.retiredSecrets.push({
        secret: endpoint.secret,
        expiresAt: now + OLD_SECRET_VALIDITY_MS,
      });
      endpoint.secret = generateSecret();
      return endpoint.secret;
    },
    remove(party: string, endpointId: string): void {
      get(party, endpointId);
      byParty.get(party)?.delete(endpointId);
    },
  };
}

export type EndpointRegistry = ReturnType<typeof createEndpointRegistry>;

/** Secrets to sign with at `now`: the current one first, then rotated-out ones still valid. */
export function validSecrets(endpoint: StoredEndpoint, now: number): string[] {
  return [
    endpoint.secret,
    ...endpoint.retiredSecrets.filter((old) => old.expiresAt > now).map((old) => old.secret),
  ];
}

/** The header a credential adds to each request (the rule is in src/protocol/credential.ts). */
export function credentialHeaders(credential: Credential | undefined): Record<string, string> {
  if (credential === undefined) return {};
  const { name, value } = credentialHeader(credential);
  return { [name]: value };
}

/** When the last rotated-out secret still valid at `now` stops being valid, if there is one. */
export function previousSecretExpiry(endpoint: StoredEndpoint, now: number): number | undefined {
  const valid = endpoint.retiredSecrets.filter((old) => old.expiresAt > now);
  return valid.length === 0 ? undefined : Math.max(...valid.map((old) => old.expiresAt));
}

export function toEndpointView(endpoint: StoredEndpoint, now: number): EndpointView {
  const view: EndpointView = {
    id: endpoint.id,
    name: endpoint.name,
    url: endpoint.url,
    credentialType: endpoint.credential?.type ?? null,
    createdAt: new Date(endpoint.createdAt).toISOString(),
  };
  const expiry = previousSecretExpiry(endpoint, now);
  if (expiry !== undefined) view.previousSecretExpiresAt = new Date(expiry).toISOString();
  return view;
}

const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers the dispatcher sets itself; a credential replacing one would break the request. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'user-agent',
]);

function validateEndpointInput(input: EndpointInput): void {
  if (input.name.trim() === '') throw new InvalidEndpointError('name', 'name must not be empty');
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new InvalidEndpointError('url', `url ${JSON.stringify(input.url)} is not a URL`);
  }
  // Plain http is accepted because this is the sandbox (docs/signature.md#transport).
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidEndpointError('url', 'url must start with https:// or http://');
  }
  if (input.secret !== undefined && input.secret === '') {
    throw new InvalidEndpointError('secret', 'secret must not be empty');
  }
  const credential = input.credential;
  if (credential === undefined) return;
  const values =
    credential.type === 'bearer'
      ? [credential.token]
      : credential.type === 'basic'
        ? [credential.username, credential.password]
        : [credential.value];
  if (values.some((value) => !HEADER_VALUE.test(value))) {
    throw new InvalidEndpointError('credential', 'credential values must not contain line breaks');
  }
  if (credential.type === 'bearer' && credential.token === '') {
    throw new InvalidEndpointError('credential.token', 'token must not be empty');
  }
  // RFC 7617: the user-id cannot contain a colon, the first colon separates the password.
  if (
    credential.type === 'basic' &&
    (credential.username === '' || credential.username.includes(':'))
  ) {
    throw new InvalidEndpointError('credential.username', 'username must be non-empty without ":"');
  }
  if (credential.type === 'header') {
    const name = credential.name.toLowerCase();
    if (!HEADER_TOKEN.test(credential.name)) {
      throw new InvalidEndpointError(
        'credential.name',
        `${JSON.stringify(credential.name)} is not a header name`,
      );
    }
    if (RESERVED_HEADERS.has(name) || name.startsWith('svc-webhook-')) {
      throw new InvalidEndpointError(
        'credential.name',
        `header ${credential.name} is set by the service itself`,
      );
    }
  }
}
