/**
 * The messaging API (docs/messaging-api.md#routes, shapes from docs/decisions.md), acting as the
 * sandbox participant. Calls pass, in order: the bearer check, the call log, injected faults,
 * then for a POST the body's content type (415 unless JSON, json-body.ts) before it is parsed.
 * Nothing is recorded for a caller without the token.
 */
import { pipeline, Readable } from 'node:stream';
import { type Request, Router } from 'express';
import {
  hasControlCharacter,
  TRANSFERS,
  type Transfer,
  transactionPath,
} from '../../protocol/index.ts';
import { renderCoreDocument } from '../core-document.ts';
import { documentBlocks, documentSize } from '../document-parts.ts';
import { InvalidRequestError, MessageNotFoundError, StateConflictError } from '../errors.ts';
import type { FaultInjector } from '../faults.ts';
import { isPlainObject } from '../invoice.ts';
import {
  describe,
  MAX_DOCUMENT_NO_FILTER,
  type ProviderMessage,
  type ProviderModel,
} from '../model/index.ts';
import { createBearerAuth } from './bearer-auth.ts';
import type { CallLog } from './call-log.ts';
import { createJsonBody, requireJsonBody } from './json-body.ts';
import { markAsFailedReason } from './mark-as-failed-body.ts';

export interface MessagingRouterOptions {
  model: ProviderModel;
  apiToken: string;
  faults: FaultInjector;
  callLog: CallLog;
}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

function queryString(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidRequestError(`${name} must be given once`, name);
  return value;
}

function queryTransfer(req: Request): Transfer | undefined {
  const value = queryString(req, 'transfer');
  if (value === undefined || (TRANSFERS as readonly string[]).includes(value)) {
    return value as Transfer | undefined;
  }
  throw new InvalidRequestError('transfer must be inbound or outbound', 'transfer');
}

/**
 * The list's `documentNo` filter (docs/decisions.md#message-list). An empty value is refused
 * rather than read as "messages without a number": it is far likelier an unset variable in the
 * caller, which would otherwise get an answer that looks like "none was created".
 */
function queryDocumentNo(req: Request): string | undefined {
  const value = queryString(req, 'documentNo');
  if (value === undefined) return undefined;
  if (value === '' || value.length > MAX_DOCUMENT_NO_FILTER) {
    throw new InvalidRequestError(
      `documentNo must be 1 to ${MAX_DOCUMENT_NO_FILTER} characters`,
      'documentNo',
    );
  }
  if (hasControlCharacter(value) || !value.isWellFormed()) {
    throw new InvalidRequestError(
      'documentNo must not contain control characters or lone surrogates',
      'documentNo',
    );
  }
  return value;
}

function queryMore(req: Request): boolean {
  const value = queryString(req, 'more');
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new InvalidRequestError('more must be true or false', 'more');
}

function queryLimit(req: Request): number {
  const value = queryString(req, 'limit');
  if (value === undefined) return DEFAULT_LIMIT;
  const limit = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) {
    throw new InvalidRequestError(`limit must be an integer from 1 to ${MAX_LIMIT}`, 'limit');
  }
  return limit;
}

/**
 * A message that has not passed validation has no documents to give: its JSON may lack what
 * the document's schema for the answer requires, and its core document was never made.
 */
function requireValidated(message: ProviderMessage, what: string): void {
  if (message.validationStatus !== 'approved') {
    throw new StateConflictError(
      message.id,
      `Message ${message.id} has no ${what}: it has not passed validation.`,
    );
  }
}

function requiredMessageId(req: Request): string {
  const id = queryString(req, 'messageId');
  if (id === undefined || id === '')
    throw new InvalidRequestError('messageId is required', 'messageId');
  return id;
}

export function createMessagingRouter(options: MessagingRouterOptions): Router {
  const { model } = options;
  const messages = model.messages;
  const party = model.participants.sandbox.identifier;
  const router = Router();
  /**
   * The side a call about one message asks for: `?transfer=` is this simulator's extension
   * (the service defines it only on the list), honoured unless the participant's settings say to
   * ignore it as a service implementing only its specification would (docs/decisions.md#transfer-query).
   */
  const sideQuery = (req: Request): Transfer | undefined =>
    model.participants.settings(party).transferQuery === 'ignored' ? undefined : queryTransfer(req);
  router.use(
    createBearerAuth(options.apiToken),
    options.callLog.middleware(),
    options.faults.middleware(),
  );

  const invoiceJson = createJsonBody('25mb');
  const reasonJson = createJsonBody('1mb');

  router.post('/transactions/submit-invoice', ...invoiceJson, (req, res) => {
    const more = queryMore(req);
    if (!isPlainObject(req.body)) throw new InvalidRequestError('The body must be a JSON object.');
    const message = messages.submitInvoice({ sender: party, body: req.body, more });
    res.locals.messageId = message.id;
    res.status(201).json({ messageId: message.id, status: message.sides.outbound?.status });
  });

  // One handler for every transaction route: a message answers only at its own action's path.
  router.get('/transactions/:route', (req, res) => {
    const id = requiredMessageId(req);
    const { message } = messages.sideFor(id, party, sideQuery(req));
    if (transactionPath(message.action) !== `/transactions/${req.params.route}`) {
      throw new MessageNotFoundError(id);
    }
    // An invalid invoice's JSON breaks the SubmitInvoice schema the document gives for the 200.
    requireValidated(message, 'transaction JSON');
    res.json(message.body);
  });

  router.get('/messages', (req, res) => {
    res.json(
      messages.list(party, {
        status: queryString(req, 'status'),
        transfer: queryTransfer(req),
        documentNo: queryDocumentNo(req),
        cursor: queryString(req, 'cursor'),
        limit: queryLimit(req),
      }),
    );
  });

  router.get('/messages/:mid', (req, res) => {
    const { message, transfer } = messages.sideFor(req.params.mid, party, sideQuery(req));
    res.json(describe(message, transfer));
  });

  router.get('/messages/:mid/status', (req, res) => {
    const { message, transfer } = messages.sideFor(req.params.mid, party, sideQuery(req));
    res.json({ status: message.sides[transfer]?.status });
  });

  router.get('/messages/:mid/documents/core', (req, res) => {
    const { message } = messages.sideFor(req.params.mid, party, sideQuery(req));
    requireValidated(message, 'core document');
    const document = renderCoreDocument(message);
    res.setHeader('content-type', document.contentType);
    const { parts } = document;
    if (parts.count === 0) {
      res.send(Buffer.concat([parts.head, parts.tail]));
      return;
    }
    // A padded document can be gigabytes: written block by block as the client reads.
    res.setHeader('content-length', String(documentSize(parts)));
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    // An error here is the client going away mid-document; there is nobody left to answer.
    pipeline(Readable.from(documentBlocks(parts)), res, () => {});
  });

  // The call takes no body; one sent anyway is not read, but must not be of an undeclared type.
  router.post('/messages/:mid/mark-as-delivered', requireJsonBody(), (req, res) => {
    messages.markAsDelivered(req.params.mid, party);
    res.status(204).end();
  });

  router.post('/messages/:mid/mark-as-failed', ...reasonJson, (req, res) => {
    // No body at all is no reason, as `{}` is.
    const reason = markAsFailedReason(req.body ?? {});
    messages.markAsFailed(req.params.mid, party, reason);
    res.status(204).end();
  });

  return router;
}
