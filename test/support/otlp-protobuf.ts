/**
 * Reads what an OTLP/HTTP trace exporter sends with its default protocol, http/protobuf
 * (opentelemetry-proto's ExportTraceServiceRequest), into plain spans: the fields a test
 * asserts on and nothing more. A reader of the protobuf wire format
 * (https://protobuf.dev/programming-guides/encoding/) over the message's field numbers, so that
 * the test decodes the bytes a collector would get without a protobuf library or the .proto
 * files. Free of vitest: bench/ may load it under plain Node.
 */

/** One span as a collector would store it. */
export interface ReceivedSpan {
  serviceName: string | undefined;
  /** The instrumentation scope: `@opentelemetry/instrumentation-http`, a tracer's name. */
  scope: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  /** Start, in milliseconds since the epoch (fractional), and length in milliseconds. */
  startMs: number;
  durationMs: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  events: string[];
}

type Value = bigint | Uint8Array;
type Fields = Map<number, Value[]>;

/** The spans of one ExportTraceServiceRequest. */
export function decodeTraceRequest(bytes: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of messages(read(bytes), 1)) {
    const [resource] = messages(resourceSpans, 1);
    const resourceAttributes = resource === undefined ? {} : attributes(resource, 1);
    const serviceName = resourceAttributes['service.name'];
    for (const scopeSpans of messages(resourceSpans, 2)) {
      const [scope] = messages(scopeSpans, 1);
      const scopeName = scope === undefined ? '' : text(scope, 1);
      for (const span of messages(scopeSpans, 2)) {
        spans.push({
          serviceName: typeof serviceName === 'string' ? serviceName : undefined,
          scope: scopeName,
          name: text(span, 5),
          kind: Number(varint(span, 6)),
          traceId: hex(span, 1),
          spanId: hex(span, 2),
          parentSpanId: hex(span, 4),
          startMs: Number(fixed64(span, 7)) / 1e6,
          durationMs: Number(fixed64(span, 8) - fixed64(span, 7)) / 1e6,
          attributes: attributes(span, 9),
          links: messages(span, 13).map((link) => ({
            traceId: hex(link, 1),
            spanId: hex(link, 2),
          })),
          events: messages(span, 11).map((event) => text(event, 2)),
        });
      }
    }
  }
  return spans;
}

/** The fields of one message, by number, in order. */
function read(bytes: Uint8Array): Fields {
  const fields: Fields = new Map();
  let at = 0;
  const nextVarint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('truncated protobuf varint');
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  const take = (length: number): Uint8Array => {
    if (at + length > bytes.length) throw new Error('truncated protobuf field');
    const slice = bytes.subarray(at, at + length);
    at += length;
    return slice;
  };
  while (at < bytes.length) {
    const key = Number(nextVarint());
    const number = key >>> 3;
    const wireType = key & 7;
    let value: Value;
    if (wireType === 0) value = nextVarint();
    else if (wireType === 1) value = take(8);
    else if (wireType === 2) value = take(Number(nextVarint()));
    else if (wireType === 5) value = take(4);
    else throw new Error(`unsupported protobuf wire type ${wireType}`);
    const list = fields.get(number) ?? [];
    list.push(value);
    fields.set(number, list);
  }
  return fields;
}

function bytesOf(fields: Fields, number: number): Uint8Array[] {
  return (fields.get(number) ?? []).filter((v): v is Uint8Array => v instanceof Uint8Array);
}

function messages(fields: Fields, number: number): Fields[] {
  return bytesOf(fields, number).map(read);
}

function text(fields: Fields, number: number): string {
  const [bytes] = bytesOf(fields, number);
  return bytes === undefined ? '' : Buffer.from(bytes).toString('utf8');
}

function hex(fields: Fields, number: number): string {
  const [bytes] = bytesOf(fields, number);
  return bytes === undefined ? '' : Buffer.from(bytes).toString('hex');
}

function fixed64(fields: Fields, number: number): bigint {
  const [bytes] = bytesOf(fields, number);
  return bytes === undefined || bytes.length !== 8 ? 0n : Buffer.from(bytes).readBigUInt64LE(0);
}

function varint(fields: Fields, number: number): bigint {
  const [value] = fields.get(number) ?? [];
  return typeof value === 'bigint' ? value : 0n;
}

/** KeyValue list: AnyValue's string (1), bool (2), int (3) and double (4) values. */
function attributes(fields: Fields, number: number): Record<string, string | number | boolean> {
  const result: Record<string, string | number | boolean> = {};
  for (const pair of messages(fields, number)) {
    const [value] = messages(pair, 2);
    if (value === undefined) continue;
    const key = text(pair, 1);
    if (value.has(1)) result[key] = text(value, 1);
    else if (value.has(2)) result[key] = varint(value, 2) !== 0n;
    else if (value.has(3)) result[key] = Number(BigInt.asIntN(64, varint(value, 3)));
    else if (value.has(4)) {
      const [bytes] = bytesOf(value, 4);
      if (bytes !== undefined) result[key] = Buffer.from(bytes).readDoubleLE(0);
    }
  }
  return result;
}
