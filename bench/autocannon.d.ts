/**
 * The part of autocannon 9's API the benchmark uses. autocannon ships no types and
 * @types/autocannon is not a dependency; these declarations follow its README
 * ("API" section) and lib/run.js, and stay this narrow on purpose.
 */
declare module 'autocannon' {
  namespace autocannon {
    /** A request as autocannon builds it; setupRequest returns a changed copy. */
    interface RequestParams {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }

    /** Per-connection scratch space, reset each time the connection loops over `requests`. */
    type Context = Record<string, unknown>;

    interface Request extends RequestParams {
      /** Called before each send; its result is the request sent. */
      setupRequest?: (request: RequestParams, context: Context) => RequestParams;
      /** Called with each response, before the connection sends its next request. */
      onResponse?: (status: number, body: string, context: Context) => void;
    }

    interface Options {
      url: string;
      /** @default 10 */
      connections?: number;
      /** Seconds. @default 10 */
      duration?: number;
      /** @default 1 */
      pipelining?: number;
      /** Seconds before a request counts as timed out. @default 10 */
      timeout?: number;
      method?: string;
      requests?: Request[];
    }

    /** Percentiles of a histogram; latency in milliseconds, requests per second sample. */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p97_5: number;
      p99: number;
      p99_9: number;
    }

    interface Result {
      url: string;
      connections: number;
      /** Seconds. */
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      '2xx': number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram;
      requests: Histogram & { sent: number };
      throughput: Histogram;
    }

    interface Instance {
      stop(): void;
    }
  }

  function autocannon(
    options: autocannon.Options,
    callback: (error: Error | null, result: autocannon.Result) => void,
  ): autocannon.Instance;

  export = autocannon;
}
