/**
 * Reconciliation (docs/consumer-duties.md#reconcile): a message whose webhooks never came is
 * found with GET /messages, imported and acknowledged once the consumer's reconciliation runs.
 * It runs last, since it may rightly fetch the messages the other duties left waiting.
 */
import { exec } from 'node:child_process';
import { promisify } from 'node:util';
import { acknowledged, callsLine, importedThenAcknowledged } from './calls.ts';
import { type DutyReport, report } from './duty.ts';
import type { Harness } from './harness.ts';

const run = promisify(exec);

export async function reconcileDuty(
  h: Harness,
  reconcile?: () => Promise<string>,
): Promise<DutyReport> {
  const duty = {
    id: 'reconciliation',
    title: 'a message never notified is found by reconciliation, imported and acknowledged',
    doc: 'docs/consumer-duties.md#reconcile',
  };
  const command = h.options.reconcileCommand;
  const trigger =
    reconcile ??
    (command === undefined
      ? undefined
      : async () => (await run(command, { timeout: h.options.timeoutMs * 3 })).stdout);
  if (trigger === undefined) {
    return report(duty, 'not checked', ['no --reconcile-command given']);
  }
  const messageId = await h.hidden(() => h.inbound());
  const started = h.allCalls().length;
  let outcome: string;
  try {
    const stdout = await trigger();
    outcome = `ok${stdout.trim() === '' ? '' : `: ${stdout.trim().split('\n').at(-1)}`}`;
  } catch (error) {
    outcome = `failed: ${(error as { code?: unknown }).code ?? ''} ${String((error as Error).message).split('\n')[0]}`;
  }
  const calls = await acknowledged(h, messageId);
  const listed = h
    .allCalls()
    .slice(started)
    .some((c) => c.method === 'GET' && c.path === '/messages');
  return report(duty, listed && importedThenAcknowledged(calls), [
    `sent: nothing; message ${messageId} waits at the service, pendingdelivery`,
    `ran: ${command ?? 'the reconciliation'} -> ${outcome}`,
    `GET /messages (the pending list) called: ${listed ? 'yes' : 'no'}`,
    callsLine(calls),
  ]);
}
