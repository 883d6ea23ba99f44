/**
 * Tax reporting and lifecycle changes (docs/events.md#status-properties, docs/statuses.md#transitions). Each is caused by an
 * action message (an MLA) that one party sends; both parties' sides of the message change,
 * but only the actor's event names the action message: actionMessageId and actionName come
 * first and only there. Everything else (jurisdiction, role, amounts, reasons, errors) goes
 * to both parties, so the other party still learns what happened and why.
 */
import { randomUUID } from 'node:crypto';
import type { Transfer } from '../../protocol/index.ts';
import { InvalidRequestError } from '../errors.ts';
import type { EventEmitter, ProviderMessage, StatusField } from './message.ts';
import { partyOf } from './message.ts';

export type Jurisdiction = 'Croatia' | 'Slovakia';
export type Role = 'Supplier' | 'Customer';

export interface TaxReportInput {
  jurisdiction: Jurisdiction;
  status: 'electronic' | 'non_electronic' | 'failed';
  errorCode?: string | undefined;
  errorMessage?: string | undefined;
  role?: Role | undefined;
  actor?: string | undefined;
}

export interface PaymentInput {
  paidAmount: string;
  /** YYYY-MM-DD. */
  paymentDate: string;
  /** @default the supplier (origin party) */
  actor?: string | undefined;
  /** @default 'Croatia' */
  jurisdiction?: Jurisdiction | undefined;
}

export interface RejectionInput {
  rejectionType: 'MismatchNotAffectingTaxes' | 'MismatchAffectingTaxes' | 'Other';
  reason: string;
  /** @default the customer (destination party) */
  actor?: string | undefined;
  /** @default 'Croatia' */
  jurisdiction?: Jurisdiction | undefined;
}

/** Fiscalisation in Croatia registers fiscal evidence; Slovakia registers a taxable delivery. */
const TAX_ACTION: Record<Jurisdiction, string> = {
  Croatia: 'RegisterFiscalEvidence',
  Slovakia: 'RegisterTaxableDelivery',
};

export interface BusinessActions {
  /** Each returns the action message id, or undefined when no status changed. */
  reportTax(message: ProviderMessage, input: TaxReportInput): string | undefined;
  registerPayment(message: ProviderMessage, input: PaymentInput): string | undefined;
  registerRejection(message: ProviderMessage, input: RejectionInput): string | undefined;
}

export function createBusinessActions(deps: {
  emitter: EventEmitter;
  randomId?: () => string;
}): BusinessActions {
  const randomId = deps.randomId ?? randomUUID;

  function resolveActor(
    message: ProviderMessage,
    actor: string | undefined,
    role: Role | undefined,
  ) {
    const supplier = message.origin.identifier;
    const customer = message.destination.identifier;
    if (actor !== undefined && actor !== supplier && actor !== customer) {
      throw new InvalidRequestError(
        `actor ${actor} is neither the supplier ${supplier} nor the customer ${customer}`,
        'actor',
      );
    }
    const resolvedRole: Role =
      role ??
      (actor !== undefined && actor === customer && actor !== supplier ? 'Customer' : 'Supplier');
    return {
      actor: actor ?? (resolvedRole === 'Customer' ? customer : supplier),
      role: resolvedRole,
    };
  }

  function apply(
    message: ProviderMessage,
    field: StatusField,
    newValue: string,
    actor: string,
    actionName: string,
    shared: Record<string, string | undefined>,
  ): string | undefined {
    const actionMessageId = randomId();
    const details = Object.fromEntries(
      Object.entries(shared).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    let changed = false;
    for (const transfer of ['outbound', 'inbound'] as Transfer[]) {
      if (message.sides[transfer] === undefined) continue;
      const isActor = partyOf(message, transfer) === actor;
      // Insertion order is the JSON order: the action comes first (docs/events.md#status-properties).
      const properties = isActor ? { actionMessageId, actionName, ...details } : details;
      changed =
        deps.emitter.changeStatus(message, transfer, field, newValue, { properties, actor }) ||
        changed;
    }
    return changed ? actionMessageId : undefined;
  }

  return {
    reportTax(message, input) {
      const { actor, role } = resolveActor(message, input.actor, input.role);
      const failed = input.status === 'failed';
      return apply(
        message,
        'taxReportingStatus',
        input.status,
        actor,
        TAX_ACTION[input.jurisdiction],
        {
          jurisdiction: input.jurisdiction,
          role,
          errorCode: input.errorCode ?? (failed ? 'TAX-REJECTED' : undefined),
          errorMessage:
            input.errorMessage ?? (failed ? 'The tax authority rejected the report' : undefined),
        },
      );
    },
    registerPayment(message, input) {
      const { actor, role } = resolveActor(message, input.actor, undefined);
      return apply(message, 'lifecycleStatus', 'paid', actor, 'RegisterPayment', {
        jurisdiction: input.jurisdiction ?? 'Croatia',
        role,
        paidAmount: input.paidAmount,
        paymentDate: input.paymentDate,
      });
    },
    registerRejection(message, input) {
      const { actor, role } = resolveActor(
        message,
        input.actor ?? message.destination.identifier,
        undefined,
      );
      return apply(message, 'lifecycleStatus', 'rejected', actor, 'RegisterRejection', {
        jurisdiction: input.jurisdiction ?? 'Croatia',
        role,
        rejectionType: input.rejectionType,
        reason: input.reason,
      });
    },
  };
}
