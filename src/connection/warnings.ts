// Server warnings (`Warning: 299 - "text"` headers): to the caller's handler, or else Node's
// process warnings once per distinct text.
import type { ServerWarning, WarningHandler } from '../types/index.ts';

export type Operation = ServerWarning['operation'];

/** Where a request's warnings go; with `reported`, each distinct warning of the call goes once. */
export interface WarningRoute {
  operation: Operation;
  handler: WarningHandler | undefined;
  reported?: Set<string>;
}

/** What makes two warnings the same one: the object they are about, their code, field and text. */
function warningKey({ code, target, path, text }: ServerWarning): string {
  const about = target ? [target.apiVersion, target.kind, target.namespace, target.name] : [];
  return JSON.stringify([code, ...about, path ?? '', text]);
}

/**
 * The texts of the 299 warnings in `Warning` values (`code agent "text" ["date"]`, comma-separated,
 * backslash escapes), as client-go reads them; a malformed value is skipped from where it breaks.
 */
export function parseWarnings(values: readonly string[]): string[] {
  const texts: string[] = [];
  for (const value of values) {
    let at = 0;
    const skip = (pattern: RegExp): void => {
      while (at < value.length && pattern.test(value.charAt(at))) at += 1;
    };
    const quoted = (): string | undefined => {
      if (value.charAt(at) !== '"') return undefined;
      let text = '';
      for (at += 1; at < value.length; at += 1) {
        const c = value.charAt(at);
        if (c === '"') {
          at += 1;
          return text;
        }
        if (c === '\\' && at + 1 < value.length) at += 1;
        text += value.charAt(at);
      }
      return undefined;
    };
    while (at < value.length) {
      skip(/[\s,]/);
      const code = /^\d{3}/.exec(value.slice(at))?.[0];
      if (code === undefined) break;
      at += 3;
      skip(/ /);
      skip(/[^\s]/); // the agent
      skip(/ /);
      const text = quoted();
      if (text === undefined) break;
      skip(/ /);
      if (value.charAt(at) === '"') quoted(); // an optional warn-date
      if (code === '299' && text !== '') texts.push(text);
    }
  }
  return texts;
}

/** Distinct texts remembered per Connection; the oldest is forgotten past this (a long-lived one). */
const REMEMBERED = 1_000;

/**
 * Delivers warnings to the operation's handler, else connect()'s, else once per distinct text as a
 * Node.js `ServerWarning`; a handler that throws does not fail the request.
 *
 * @example
 * const sink = new WarningSink((w) => console.warn(w.text));
 * sink.deliver({ text: 'deprecated', code: 'OTC_SERVER_WARNING', operation: 'create' }, undefined);
 */
export class WarningSink {
  readonly #handler: WarningHandler | undefined;
  readonly #emitted = new Set<string>();

  constructor(handler: WarningHandler | undefined) {
    this.#handler = handler;
  }

  /** Hands one warning on; a dry run and its write draw the same warnings, told once per call. */
  deliver(warning: ServerWarning, route: WarningRoute | undefined): void {
    if (route?.reported) {
      const key = warningKey(warning);
      if (route.reported.has(key)) return;
      route.reported.add(key);
    }
    const handler = route?.handler ?? this.#handler;
    if (handler) {
      try {
        handler(warning);
      } catch {
        // The caller's handler is theirs to fix; the request it was told about stands.
      }
      return;
    }
    if (this.#emitted.has(warning.text)) return;
    if (this.#emitted.size >= REMEMBERED) this.#emitted.delete(this.#emitted.values().next().value ?? '');
    this.#emitted.add(warning.text);
    globalThis.process.emitWarning(warning.text, { type: 'ServerWarning', code: warning.code });
  }
}
