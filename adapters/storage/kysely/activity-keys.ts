/**
 * The filter columns of an activity query (migration 0015), derived from a message and its send
 * in one place so the store and the backfill agree.
 */

/** `|a|b|` of a send's groups (`\` and `|` escaped), so one group is the substring `|a|`. */
export function groupKey(groups: readonly string[]): string {
  return groups.length === 0 ? '' : `|${groups.map(escapeGroup).join('|')}|`;
}

/** The substring of {@link groupKey} that marks `group`. */
export function groupNeedle(group: string): string {
  return `|${escapeGroup(group)}|`;
}

function escapeGroup(group: string): string {
  return group.replaceAll('\\', '\\\\').replaceAll('|', '\\|');
}
