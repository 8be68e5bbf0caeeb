// Reading upstream files out of repository snapshots (bare git directories) with `git show`.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** One upstream file the data is generated from, pinned to a commit. */
export interface Source {
  repository: string;
  path: string;
  /** The branch or tag the commit was taken from. */
  ref: string;
  commit: string;
}

/** A repository snapshot found under one of the `--mirror` folders. */
export interface Snapshot {
  repository: string;
  gitDir: string;
}

/** Where `fetch github:OWNER/NAME` puts a snapshot: `DIR/OWNER+NAME/repo` (or `DIR/OWNER+NAME`). */
export function findSnapshot(mirrors: readonly string[], repository: string): Snapshot {
  const folder = repository.replace('/', '+');
  for (const mirror of mirrors) {
    for (const candidate of [join(mirror, folder, 'repo'), join(mirror, folder)]) {
      if (existsSync(join(candidate, 'HEAD'))) return { repository, gitDir: candidate };
    }
  }
  throw new Error(
    `no snapshot of ${repository}: expected a git directory at <mirror>/${folder}/repo under ` +
      `${mirrors.join(', ') || '(no --mirror given)'}; fetch github:${repository} first`,
  );
}

function git(snapshot: Snapshot, args: string[]): string {
  return execFileSync('git', ['--git-dir', snapshot.gitDir, ...args], {
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
  });
}

/** The commit `ref` names, or a clear error saying which branch or tag the snapshot lacks. */
export function resolve(snapshot: Snapshot, ref: string): string {
  try {
    return git(snapshot, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).trim();
  } catch (error) {
    throw new Error(`the snapshot of ${snapshot.repository} has no ${ref}; fetch it again`, {
      cause: error,
    });
  }
}

/** The text of `path` at `ref`, recorded in `sources`. */
export function show(snapshot: Snapshot, ref: string, path: string, sources: Source[]): string {
  const commit = resolve(snapshot, ref);
  if (!sources.some((s) => s.repository === snapshot.repository && s.path === path)) {
    sources.push({ repository: snapshot.repository, path, ref, commit });
  }
  return git(snapshot, ['show', `${commit}:${path}`]);
}

/** The files under `folder` at `ref`. */
export function list(snapshot: Snapshot, ref: string, folder: string): string[] {
  const commit = resolve(snapshot, ref);
  return git(snapshot, ['ls-tree', '-r', '--name-only', commit, folder]).split('\n').filter(Boolean);
}
