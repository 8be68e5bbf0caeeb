// What a stretch of work allocates, by V8's sampling heap profiler with the objects the garbage
// collector has already taken counted too: the volume the collector must clear, which timing on a
// busy machine hides. Each sampled byte is charged to the nearest frame in the library's src/.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

export interface Allocations {
  /** Bytes sampled during the work, in MB: an estimate of everything allocated. */
  totalMb: number;
  /** The library's allocation sites (nearest src/ frame), in MB, largest first. */
  sites: [string, number][];
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

function site(frame: HeapNode['callFrame']): string | undefined {
  const at = frame.url.indexOf('/src/');
  if (at < 0) return undefined;
  return `${frame.functionName || '(anonymous)'} ${frame.url.slice(at + 1)}:${String(frame.lineNumber + 1)}`;
}

function summarize(head: HeapNode, top: number): Allocations {
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, nearest: string): void => {
    const here = site(node.callFrame) ?? nearest;
    total += node.selfSize;
    bySite.set(here, (bySite.get(here) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, here);
  };
  walk(head, '(outside src/)');
  const sites = [...bySite]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, bytes]): [string, number] => [name, bytes / 1e6]);
  return { totalMb: total / 1e6, sites };
}

/**
 * Runs `work` with allocation sampling on (every 4 kB on average) and summarises what it allocated;
 * with `keep`, the whole profile is written there too (a .heapprofile that DevTools opens).
 */
export async function sampleAllocations<T>(
  work: () => Promise<T>,
  keep?: string,
  top = 40,
): Promise<[T, Allocations]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    const result = await work();
    const { profile } = await session.post('HeapProfiler.stopSampling');
    if (keep !== undefined) await writeFile(keep, JSON.stringify(profile));
    return [result, summarize(profile.head, top)];
  } finally {
    session.disconnect();
  }
}
