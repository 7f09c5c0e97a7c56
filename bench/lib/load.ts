/** A small closed-loop HTTP load generator: N connections, each sending its next request on reply. */
import http from 'node:http';

/** What to send and for how long. */
export interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** Request body, or a function giving the body of the i-th request. */
  body?: string | ((i: number) => string);
  concurrency: number;
  durationMs: number;
  /** Requests before measuring starts (JIT, caches, connection set-up). */
  warmupRequests?: number;
}

/** Requests per second achieved, and how many failed. */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
}

/** Runs the load and reports throughput over the measured window (after warm-up). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const bodyOf = typeof options.body === 'function' ? options.body : () => (options.body as string | undefined) ?? '';
  let sent = 0;
  const once = () =>
    new Promise<boolean>((resolve) => {
      const body = bodyOf(sent++);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: options.method ?? 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            ...options.headers,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200));
        },
      );
      req.on('error', () => resolve(false));
      req.end(body);
    });

  const warmup = options.warmupRequests ?? 200;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, w) => {
      for (let i = w; i < warmup; i += options.concurrency) await once();
    }),
  );

  let requests = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        if (await once()) requests++;
        else errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { requests, errors, seconds, perSecond: requests / seconds };
}
