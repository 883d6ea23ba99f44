/** The messages between the main thread (writer.ts) and the writer thread (writer-thread.ts). */

/** One write operation asked for; its answer names it by `id`. */
export interface WriterCall {
  id: number;
  op: string;
  args: unknown[];
  /** Calls of the same message this one follows: it runs only if they did (callAfter). */
  after?: number[];
}

/**
 * The calls of one turn of the main thread's event loop travel in one message: a message costs
 * both threads a fixed few microseconds whatever it holds (issue 39 measured 11 us per webhook
 * with one message per call).
 */
export type WriterRequest = { type: 'calls'; calls: WriterCall[] } | { type: 'close' };

export interface SerializedError {
  name: string;
  message: string;
  code: string | undefined;
}

export type WriterReply =
  | { type: 'ready' }
  | { type: 'failed'; error: SerializedError }
  | {
      type: 'results';
      results: Array<
        { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError }
      >;
    }
  | { type: 'closed' };

/** Errors cross threads as plain data: name, message and SQLite's code (SQLITE_BUSY, ...). */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      name: error.name,
      message: error.message,
      code: typeof code === 'string' ? code : undefined,
    };
  }
  return { name: 'Error', message: String(error), code: undefined };
}

export function deserializeError(error: SerializedError): Error {
  return Object.assign(new Error(error.message), {
    name: error.name,
    ...(error.code === undefined ? {} : { code: error.code }),
  });
}
