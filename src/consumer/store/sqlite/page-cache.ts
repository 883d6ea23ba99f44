/**
 * The page cache of each SQLite connection the store opens (the writer thread's and the main
 * thread's reads), set where each is opened. better-sqlite3 builds SQLite with a 16 MB cache
 * per connection (SQLITE_DEFAULT_CACHE_SIZE=-16000), filled as a drain touches the inbox and
 * its indexes and never given back: up to 32 MB of the consumer's resident memory, a fifth of
 * its 150 MiB target (docs/performance.md#memory). The pages the store works on (the due
 * events, the heads of the outbox, the dedupe index's right edge) are a small part of the
 * file; a page not in the cache is read from the kernel's page cache, a pread away, so a
 * smaller cache costs a few system calls, not disk reads (measured: docs/performance.md).
 */
export const PAGE_CACHE_PRAGMA = 'cache_size = -2048';
