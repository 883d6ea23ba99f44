/**
 * An OTLP/HTTP trace receiver on loopback, standing in for a collector: it accepts what an
 * exporter POSTs to /v1/traces (http/protobuf, decoded by otlp-protobuf.ts), answers 200 as a
 * collector does, and keeps the spans. Free of vitest: bench/ loads it under plain Node, where
 * `keep: false` counts requests and bytes and decodes nothing, as a collector's cheapest
 * receiving end would cost the machine little beside the consumer under test.
 */
import { createServer } from 'node:http';
import { closeServer, listenOnLoopback } from './loopback-server.ts';
import { decodeTraceRequest, type ReceivedSpan } from './otlp-protobuf.ts';

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to: the exporter adds /v1/traces. */
  url: string;
  /** Every span received so far, in the order of arrival. */
  spans(): readonly ReceivedSpan[];
  /** Requests received so far, whatever their path. */
  requests(): number;
  /** Bytes of request bodies received so far. */
  bytes(): number;
  close(): Promise<void>;
}

export async function startOtlpReceiver(
  options: { keep?: boolean /** @default any free port */; port?: number } = {},
): Promise<OtlpReceiver> {
  const keep = options.keep ?? true;
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    requests += 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      bytes += body.length;
      if (keep && req.headers['content-type'] === 'application/x-protobuf') {
        const received = decodeTraceRequest(body);
        spans.push(...received);
      }
      // An empty ExportTraceServiceResponse: everything accepted.
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  const url = await listenOnLoopback(server, options.port);
  return {
    url,
    spans: () => spans,
    requests: () => requests,
    bytes: () => bytes,
    close: () => closeServer(server),
  };
}
