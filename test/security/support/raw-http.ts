/**
 * HTTP at the socket level, for tests that must show a request is answered before its body is
 * sent: a client library would insist on sending the body it announced first.
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Opens a connection, sends `head` (request line and headers, no body) and whatever `body`
 * part is given, and resolves with the first complete response. The socket stays open: the
 * caller decides whether the rest of the body ever comes.
 */
export function sendHead(
  url: string,
  head: { method: string; path: string; headers: Record<string, string>; body?: string },
): { response: Promise<RawResponse>; socket: Socket } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const lines = [
    `${head.method} ${head.path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    ...Object.entries(head.headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.write(`${lines.join('\r\n')}\r\n\r\n${head.body ?? ''}`);
  const response = new Promise<RawResponse>((resolve, reject) => {
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseResponse(received);
      if (parsed !== undefined) resolve(parsed);
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed before a response: ${received}`)));
  });
  // A caller that only holds the connection open never awaits the answer.
  response.catch(() => undefined);
  return { response, socket };
}

function parseResponse(bytes: Buffer): RawResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...headerLines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = bytes.subarray(end + 4);
  if (body.length < length) return undefined;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: body.subarray(0, length).toString('utf8'),
  };
}
