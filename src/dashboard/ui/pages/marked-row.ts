/**
 * The row a link elsewhere points at (`#/subaccounts/3`, `#/ips/pool-2`): marked for the eye and for
 * screen readers (`aria-current`), and scrolled into view once its list has loaded.
 */
import { useEffect } from 'preact/hooks';

/** The attributes of a table row: the mark when `key` is the one the address names. */
export type MarkRow = (key: string) => Record<string, string | undefined>;

/** Marks the row named by the route's `arg` and shows it once `loaded`. */
export function useMarkedRow(arg: string | undefined, loaded: boolean): MarkRow {
  useEffect(() => {
    if (loaded && arg !== undefined) document.querySelector('tr.marked')?.scrollIntoView({ block: 'center' });
  }, [arg, loaded]);
  return (key) => (key === arg ? { class: 'marked', 'aria-current': 'true' } : {});
}
