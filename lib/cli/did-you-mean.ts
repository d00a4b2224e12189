/**
 * "Did you mean" for an unknown option. commander suggests by edit distance only, so `--secs` got
 * `--docs, --seed` (two edits away) and not `--seconds`, which it abbreviates. Here an abbreviation comes
 * first: the typed name is the start of a flag (`--warm` -> `--warmup`), or its letters appear in a flag's
 * in order from the same first letter (`--secs` -> `--seconds`); commander's edit-distance guess stays for
 * a typo (`--seocnds` -> `--seconds`).
 */
import type { Command } from 'commander';

/** The long flags an unknown option of `command` may have meant: its own and its parents'. */
function longFlags(command: Command): string[] {
  const flags: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) {
    for (const option of c.createHelp().visibleOptions(c)) if (option.long) flags.push(option.long);
  }
  return [...new Set(flags)];
}

/** Whether `word`'s letters appear in `flag` in order, starting with the same letter. */
function abbreviates(word: string, flag: string): boolean {
  if (word.length < 2 || word[0] !== flag[0]) return false;
  let at = 0;
  for (const ch of flag) if (ch === word[at]) at++;
  return at === word.length;
}

/** The flags `typed` abbreviates (prefixes first, then the shortest), at most three; empty when none. */
export function abbreviationsOf(typed: string, flags: readonly string[]): string[] {
  const word = typed.replace(/^--/, '').toLowerCase();
  const names = flags.map((f) => f.replace(/^--/, ''));
  const prefixes = names.filter((n) => n.startsWith(word) && n !== word);
  const others = names
    .filter((n) => !n.startsWith(word) && abbreviates(word, n))
    .sort((a, b) => a.length - b.length);
  return [...prefixes.sort((a, b) => a.length - b.length), ...others]
    .slice(0, 3)
    .map((n) => `--${n}`);
}

const UNKNOWN_OPTION = /^(error: unknown option '(--[^']+)')(?:\n\(Did you mean[^)]*\))?\n?$/;

/**
 * For commander's outputError: an unknown-option message suggests the flags it abbreviates, or else
 * commander's own guess; other messages pass as they are.
 */
export function suggestOptions(message: string, command: Command): string {
  const m = UNKNOWN_OPTION.exec(message);
  if (!m) return message;
  const own = /\(Did you mean (?:one of )?([^?)]*)\?\)/.exec(message)?.[1].split(', ') ?? [];
  const flags = longFlags(command);
  const abbreviations = abbreviationsOf(m[2], flags);
  const all = abbreviations.length > 0 ? abbreviations : own;
  if (all.length === 0) return `${m[1]}\n`;
  return `${m[1]}\n(Did you mean ${all.length > 1 ? 'one of ' : ''}${all.join(', ')}?)\n`;
}
