/**
 * HTTP/1.1 at the socket level, for requests no client library would send: broken framing,
 * control characters in headers, bodies cut off midway, a byte at a time.
 */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  /** Final status (1xx interim answers skipped); undefined when the server closed first. */
  status: number | undefined;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Sends `request` (head and body bytes, as given) on a new connection and resolves with the
 * first final answer, or with `status: undefined` when the connection closes without one.
 * `abortAfter` bytes: the rest is never sent and the connection is destroyed at once (an
 * upload aborted midway); whatever answer came before counts.
 */
export function exchange(
  port: number,
  request: Buffer,
  options: { abortAfter?: number; timeoutMs?: number; head?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (answer: RawAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      socket.destroy();
      reject(new Error(`no answer within ${options.timeoutMs ?? 5000} ms`));
    }, options.timeoutMs ?? 5000);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const answer = parseAnswer(received, options.head ?? false);
      if (answer !== undefined) finish(answer);
    });
    // A reset after an early answer is how a server refuses the rest of a body: not an error.
    socket.on('error', () => {});
    socket.on('close', () => finish({ status: undefined, headers: {}, body: Buffer.alloc(0) }));
    if (options.abortAfter === undefined) {
      socket.write(request);
    } else {
      socket.write(request.subarray(0, options.abortAfter), () => {
        if (!settled) finish({ status: undefined, headers: {}, body: Buffer.alloc(0) });
      });
    }
  });
}

/** Opens a connection and sends `text` one byte every `intervalMs`, forever (until destroyed). */
export function dribble(port: number, text: Buffer, intervalMs: number): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= text.length || socket.destroyed) {
      clearInterval(timer);
      return;
    }
    socket.write(text.subarray(sent, sent + 1));
    sent += 1;
  }, intervalMs);
  socket.on('close', () => clearInterval(timer));
  return socket;
}

function parseAnswer(bytes: Buffer, head: boolean): RawAnswer | undefined {
  let start = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', start);
    if (end < 0) return undefined;
    const [statusLine = '', ...lines] = bytes.subarray(start, end).toString('latin1').split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    if (status >= 100 && status < 200) {
      start = end + 4; // 100 Continue: the final answer follows
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length =
      head || status === 204 || status === 304 ? 0 : Number(headers['content-length'] ?? 0);
    const body = bytes.subarray(end + 4);
    if (body.length < length) return undefined;
    return { status, headers, body: body.subarray(0, length) };
  }
}
