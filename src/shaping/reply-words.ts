/**
 * Matching one SMTP reply against the patterns of the throttling-reply table (throttle-replies.ts).
 * A multi-line reply reaches mailplane as its lines joined by `\n`, each with its code and often its
 * enhanced code ("421-4.7.28 unusual rate of\n421-4.7.28 unsolicited mail"), so a phrase can be
 * split across lines: the text is folded once into lower-case words without those prefixes, and
 * every pattern is tried on that. Each step is one linear pass.
 */
import { parseEnhancedCode } from '../model/enhanced-code.js';

/** A reply as delivery saw it: the basic code (null when there was none), the text, the enhanced code if known. */
export interface ReplySeen {
  code: number | null;
  text: string;
  /** Read from the text's start when absent. */
  enhancedCode?: string;
}

/**
 * What a row asks of a reply; every field given must hold.
 * - `code`: one basic code, or a class (`'4xx'` transient, `'5xx'` permanent);
 * - `enhanced`: an enhanced code (`'4.7.28'`), or a prefix ending with a dot (`'5.7.'`);
 * - `text`: a lower-case literal found in the folded text, or a regular expression over it made of
 *   literal alternatives only (no nested or unbounded quantifiers), so that it stays linear.
 */
export interface ReplyPattern {
  readonly code?: number | '4xx' | '5xx';
  readonly enhanced?: string;
  readonly text?: string | RegExp;
}

/** The code, and the enhanced code if any, that lead a reply line: "421-4.7.28 " or "550 ". */
const LINE_PREFIX = /^(?:\d{3}(?:[ -]|$))?(?:[245]\.\d{1,3}\.\d{1,3}(?: |$))?/;

/** The reply's text in lower case, without its per-line codes, its runs of white space made one space. */
export function foldReplyText(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(LINE_PREFIX, ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** A predicate that tells whether a pattern matches `reply`, folding the text once for all patterns. */
export function matchesReply(reply: ReplySeen): (pattern: ReplyPattern) => boolean {
  const { code } = reply;
  const enhanced = reply.enhancedCode ?? parseEnhancedCode(reply.text, code);
  let folded: string | undefined;
  const words = () => (folded ??= foldReplyText(reply.text));
  return (pattern) => {
    if (pattern.code !== undefined) {
      if (code === null) return false;
      if (
        pattern.code === '4xx'
          ? code < 400 || code > 499
          : pattern.code === '5xx'
            ? code < 500 || code > 599
            : code !== pattern.code
      )
        return false;
    }
    if (pattern.enhanced !== undefined) {
      if (enhanced === undefined) return false;
      const prefix = pattern.enhanced.endsWith('.');
      if (prefix ? !enhanced.startsWith(pattern.enhanced) : enhanced !== pattern.enhanced) return false;
    }
    if (pattern.text === undefined) return true;
    return typeof pattern.text === 'string' ? words().includes(pattern.text) : pattern.text.test(words());
  };
}
