/**
 * The business transaction call that returns a message's JSON is chosen by `data.action`
 * (SPEC.md section 2.2); its path is the kebab-case of the action (DESIGN.md section 2):
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
