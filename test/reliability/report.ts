// Reliability suites record what they measured; `npm run reliability` turns it into docs/reliability.md.
import { appendFileSync } from 'node:fs';

export function report(kind: string, data: unknown): void {
  const file = process.env.OTS_REPORT_FILE;
  if (file) appendFileSync(file, `${JSON.stringify({ kind, data })}\n`);
}

/** One cell of the fault matrix, as the test records it and docs/reliability.md shows it. */
export interface MatrixRow {
  step: string;
  fault: string;
  outcome: string;
  message: string;
  attempts: string;
  accounted: string;
  usable: string;
  sockets: string;
}
