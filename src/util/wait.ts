// Waiting for work that several callers share, each on its own signal.

/**
 * Waits for a shared promise until it settles or this caller's signal fires, then rejects with
 * `stopped(signal)`; a fired signal stops this caller only, never the shared work. The shared
 * promise is always observed, so its failure is never an unhandled rejection, whoever waits.
 */
export function waitFor<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  stopped: (signal: AbortSignal) => Error,
): Promise<T> {
  promise.catch(() => undefined);
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(stopped(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(stopped(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
