/**
 * The start of an answer's body as text, at most `maxBytes` of it: what an example module
 * (src/importers/erp-http.ts, src/sinks/erp-http.ts) reads of an ERP's answer, so a huge or
 * endless answer never fills memory. The rest is not read; the body is destroyed.
 */
export async function readBounded(
  body: AsyncIterable<Buffer> & { destroy(): void },
  maxBytes: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = maxBytes - size;
    chunks.push(chunk.subarray(0, room));
    size += Math.min(chunk.length, room);
    if (size >= maxBytes) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
