// The owner label's value and what a live object says of its owners (src/checks/ownership.ts):
// pure functions, data in and answers out.
import { describe, expect, test } from 'vitest';
import {
  foreignMark,
  isMine,
  otherDeclarers,
  OWNER_LABEL,
  ownerLabelValue,
  withOwnerLabel,
} from '../../src/checks/ownership.ts';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const live = (
  labels: Record<string, string> | undefined,
  entries: { manager: string; operation: string }[],
) => ({
  metadata: { ...(labels ? { labels } : {}), managedFields: entries },
});

describe('the owner label value', () => {
  test('is the field manager when that is a valid label value, else a digest that keeps managers apart', () => {
    expect(ownerLabelValue('mini-scheduler')).toBe('mini-scheduler');
    expect(ownerLabelValue('a'.repeat(63))).toBe('a'.repeat(63));
    const long = ownerLabelValue('a'.repeat(64));
    const spaced = ownerLabelValue('team a/ci');
    for (const value of [long, spaced]) expect(value).toMatch(/^sha256-[0-9a-f]{40}$/);
    expect(long).not.toBe(spaced);
    expect(ownerLabelValue('team a/ci')).toBe(spaced);
    // Two managers a substitution of characters would merge stay apart.
    expect(ownerLabelValue('team a')).not.toBe(ownerLabelValue('team_a'));
  });

  test('is added to a copy, every other key kept', () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { app: 'y' } } };
    expect(withOwnerLabel(object, 'nightly')).toEqual({
      ...object,
      metadata: { name: 'x', labels: { app: 'y', [OWNER_LABEL]: 'nightly' } },
    });
    expect(object.metadata.labels).toEqual({ app: 'y' });
  });
});

describe('whose it is', () => {
  test('the label decides; an Apply entry only on an object without it', () => {
    const apply = [{ manager: 'nightly', operation: 'Apply' }];
    expect(isMine(live({ [OWNER_LABEL]: 'nightly' }, []), 'nightly', CONFIGMAP)).toBe(true);
    expect(isMine(live({ [OWNER_LABEL]: 'other' }, apply), 'nightly', CONFIGMAP)).toBe(false);
    expect(isMine(live(undefined, apply), 'nightly', CONFIGMAP)).toBe(true);
    expect(isMine(live(undefined, [{ manager: 'nightly', operation: 'Update' }]), 'nightly', CONFIGMAP)).toBe(
      false,
    );
  });

  test("other declarers: Apply entries and client tools' Updates, never a controller's", () => {
    const entries = [
      { manager: 'nightly', operation: 'Apply' as const },
      { manager: 'other-team', operation: 'Apply' as const },
      { manager: 'kubectl-edit', operation: 'Update' as const },
      { manager: 'kube-controller-manager', operation: 'Update' as const },
      { manager: 'kubectl-create', operation: 'Update' as const, subresource: 'status' },
    ];
    expect(otherDeclarers(entries, 'nightly')).toEqual(['other-team', 'kubectl-edit']);
  });

  test("another manager's mark: its label, or a single other Apply manager on an object from before it", () => {
    expect(foreignMark(live({ [OWNER_LABEL]: 'my-scheduler' }, []), 'nightly', CONFIGMAP)).toBe(
      'my-scheduler',
    );
    expect(
      foreignMark(live(undefined, [{ manager: 'my-scheduler', operation: 'Apply' }]), 'nightly', CONFIGMAP),
    ).toBe('my-scheduler');
    const two = [
      { manager: 'a', operation: 'Apply' },
      { manager: 'b', operation: 'Apply' },
    ];
    expect(foreignMark(live(undefined, two), 'nightly', CONFIGMAP)).toBeUndefined();
    expect(foreignMark(live({ [OWNER_LABEL]: 'nightly' }, []), 'nightly', CONFIGMAP)).toBeUndefined();
  });
});
