// Plain-JSON helpers shared by the checks and the request layer.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a value is a string with something in it. */
export const hasText = (text: unknown): text is string => typeof text === 'string' && text !== '';

/** What a value is, in words for an error message: never the value itself. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/**
 * Sets `key` on `target` as an own property, whatever the key: a plain assignment of `__proto__`
 * would replace the prototype instead and lose the key (a valid ConfigMap key, say).
 *
 * @example
 * const data: Record<string, unknown> = {};
 * setOwn(data, '__proto__', 'x');
 * Object.keys(data); // ['__proto__']
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
