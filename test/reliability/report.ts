// Reliability suites record what they measured; `npm run reliability` turns it into docs/reliability.md.
import { appendFileSync } from 'node:fs';

export function report(kind: string, data: unknown): void {
  const file = process.env.OTS_REPORT_FILE;
  if (file) appendFileSync(file, `${JSON.stringify({ kind, data })}\n`);
}
