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

/** One warning of a `Warning` value as client-go parses it: `code agent "text"`, an optional `"date"`. */
const WARNING = /[\s,]*(\d{3}) [^ ]* "((?:[^"\\]|\\.)*)"(?: "(?:[^"\\]|\\.)*")?/y;

/**
 * The texts of the 299 warnings in `Warning` values (comma-separated), as client-go reads them; a
 * malformed value is skipped from where it breaks.
 */
export function parseWarnings(values: readonly string[]): string[] {
  const texts: string[] = [];
  for (const value of values) {
    WARNING.lastIndex = 0;
    for (let match = WARNING.exec(value); match !== null; match = WARNING.exec(value)) {
      const text = (match[2] ?? '').replace(/\\(.)/g, '$1');
      if (match[1] === '299' && text !== '') texts.push(text);
    }
  }
  return texts;
}

/** Distinct texts remembered per Connection; the oldest is forgotten past this (a long-lived one). */
const REMEMBERED = 1_000;

/**
 * Delivers warnings to the operation's handler, else connect()'s, else once per distinct text as a
 * Node.js `ServerWarning`; a handler that throws does not fail the request.
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
