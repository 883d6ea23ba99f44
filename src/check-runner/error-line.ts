/** An error a case saw, as one line of its evidence: its type and message, bounded. */

/** Whitespace folded into single spaces, at most 300 characters. */
export function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${oneLine(error.message)}`;
  return oneLine(String(error));
}
