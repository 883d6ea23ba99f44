/**
 * The business transaction call that returns a message's JSON is chosen by `data.action`
 * (docs/events.md#message-descriptor); its path is the kebab-case of the action (docs/decisions.md):
 * `SubmitInvoice` -> `/transactions/submit-invoice`.
 */
export function transactionPath(action: string): string {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(action)) {
    throw new TypeError(`Not a business transaction name: ${JSON.stringify(action)}`);
  }
  const kebab = action
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
  return `/transactions/${kebab}`;
}
