/**
 * The documents of message `crash-<n>` of file-import-loop.ts: the same bytes whichever process
 * imports them, so a test can check a folder's files against what was meant. Every fifth core
 * document is 256 KiB, so that a kill often lands inside a write.
 */
export function documentsOf(n: number): { core: Buffer; transaction: Buffer } {
  const size = n % 5 === 0 ? 256 * 1024 : 2000;
  return {
    core: Buffer.alloc(size, `<Invoice><ID>${n}</ID></Invoice>`),
    transaction: Buffer.from(JSON.stringify({ invoice: { invoiceNo: `INV-${n}` } })),
  };
}
