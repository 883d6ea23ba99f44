/**
 * The actions a webhook event names (docs/events.md#envelope): the message actions, whose
 * `data` is a descriptor, and the status actions, whose `data` is a status change of one kind.
 * Its own module so that the envelope and the status change both depend on it, and not on each
 * other.
 */
export const MESSAGE_ACTIONS = ['created', 'deliveryNotified'] as const;
export const STATUS_ACTIONS = [
  'messageStatusChanged',
  'taxReportingStatusChanged',
  'lifecycleStatusChanged',
] as const;
export type MessageAction = (typeof MESSAGE_ACTIONS)[number];
export type StatusAction = (typeof STATUS_ACTIONS)[number];
export type KnownAction = MessageAction | StatusAction;

/** The three statuses that change independently; a consumer orders events per kind. */
export type StatusKind = 'delivery' | 'taxReporting' | 'lifecycle';

const STATUS_KIND_BY_ACTION: Record<StatusAction, StatusKind> = {
  messageStatusChanged: 'delivery',
  taxReportingStatusChanged: 'taxReporting',
  lifecycleStatusChanged: 'lifecycle',
};

export function isKnownAction(action: string): action is KnownAction {
  return (MESSAGE_ACTIONS as readonly string[]).includes(action) || isStatusAction(action);
}

export function isStatusAction(action: string): action is StatusAction {
  return (STATUS_ACTIONS as readonly string[]).includes(action);
}

export function statusKindOf(action: StatusAction): StatusKind {
  return STATUS_KIND_BY_ACTION[action];
}
