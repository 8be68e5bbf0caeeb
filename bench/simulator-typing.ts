// `node scripts/with-node.mjs node bench/simulator-typing.ts`: what typing costs the simulator.
// Its start-up (the OpenAPI documents are read on first use, so typing adds nothing there), the
// first apply of a group-version (which reads its document and builds its compact table once),
// and the typing of one server-side apply body afterwards, in µs. A measurement, not a test.
import { OpenApiDocuments } from '../simulator/discovery/openapi/documents.ts';
import { TypeTables } from '../simulator/discovery/openapi/tables.ts';
import { RESOURCES } from '../simulator/discovery/resources.ts';
import { startSimulator } from '../simulator/index.ts';
import { typeApplied } from '../simulator/objects/typing.ts';
import type { ResourceInfo } from '../simulator/types.ts';
import { deployment } from '../test/schema/tables.ts';

const ROUNDS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function startUpMs(): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    const sim = await startSimulator();
    times.push(performance.now() - start);
    await sim.close();
  }
  return median(times);
}

function deployments(): ResourceInfo {
  const found = RESOURCES.find((r) => r.group === 'apps' && r.name === 'deployments');
  if (found === undefined) throw new Error('the simulator serves no apps/v1 deployments');
  return found;
}
const info = deployments();
const body = deployment();

function firstApplyMs(): number {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const tables = new TypeTables(new OpenApiDocuments());
    const start = performance.now();
    typeApplied(tables.forKind(info), info, body);
    times.push(performance.now() - start);
  }
  return median(times);
}

function perApplyMicroseconds(count: number): number {
  const tables = new TypeTables(new OpenApiDocuments());
  const rounds: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const start = performance.now();
    for (let i = 0; i < count; i++) typeApplied(tables.forKind(info), info, body);
    if (round > 0) rounds.push(((performance.now() - start) * 1000) / count);
  }
  return median(rounds);
}

console.log(`simulator start-up (median of ${ROUNDS}): ${(await startUpMs()).toFixed(1)} ms`);
console.log(`first apps/v1 apply, document read and table built: ${firstApplyMs().toFixed(1)} ms`);
console.log(`typing one Deployment apply afterwards: ${perApplyMicroseconds(2000).toFixed(1)} µs`);
