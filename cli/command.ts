/**
 * What every `mailplane` command is made of, and the argument parsing they share: Node's
 * `util.parseArgs`, strict, with its errors turned into usage errors (exit status 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The exit statuses of every command (docs/cli.md, "Exit statuses"). */
export const EXIT = {
  /** The command did what it was asked. */
  ok: 0,
  /** The operation failed: a bad variable, a server that answered an error, a domain not verified. */
  failed: 1,
  /** The command line was wrong: an unknown command or flag, a missing argument. */
  usage: 2,
} as const;

/** The flag options of a command, as `util.parseArgs` takes them. */
export type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/** A command line parsed against a command's flags. */
export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
}

/** What a command's `run` is given. */
export interface CommandInput extends ParsedArgs {
  /** The environment the configuration is read from. */
  env: NodeJS.ProcessEnv;
}

/** One `mailplane` command. */
export interface CliCommand {
  /** The name typed after `mailplane`. */
  name: string;
  /** One line for `mailplane --help`. */
  summary: string;
  /** The full `--help` text (usage, flags, examples). */
  help: string;
  /** Its flags (`--help` is added to every command). */
  options: FlagOptions;
  /** How many positional arguments it takes, at least and at most. */
  positionals: { min: number; max: number; names: string };
  /**
   * Runs the command; resolves with the exit status, or `'running'` for one that keeps the process
   * alive (a server) and exits on its own.
   */
  run(input: CommandInput): Promise<number | 'running'>;
}

/** A wrong command line: printed with a hint to `--help`, exit status 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** What a failure prints on stderr and the status the process exits with. */
export interface FailureReport {
  lines: string[];
  exitCode: number;
}

/** How a usage error of the command `commandName` (undefined before a command is known) is reported. */
export function reportUsageError(error: UsageError, commandName?: string): FailureReport {
  const help = commandName ? `mailplane ${commandName} --help` : 'mailplane --help';
  return { lines: [`mailplane: ${error.message}`, `Run \`${help}\` for its usage.`], exitCode: EXIT.usage };
}

/** A failed operation whose message is the whole story (no cause to print): exit status 1. */
export class CommandFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFailure';
  }
}

/** `args` parsed against `command`'s flags; throws a {@link UsageError} naming what is wrong. */
export function parseCommandArgs(command: CliCommand, args: string[]): ParsedArgs {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // parseArgs's own words ("Unknown option '--x'"), without its advice on `--` (shown in --help).
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  const { values, positionals } = parsed;
  if (values.help !== true) {
    const { min, max, names } = command.positionals;
    if (positionals.length < min) throw new UsageError(`${command.name}: missing ${names}`);
    if (positionals.length > max)
      throw new UsageError(`${command.name}: unexpected argument ${JSON.stringify(positionals[max])}`);
  }
  return { values: values as ParsedArgs['values'], positionals };
}

/** A string flag's value, or `undefined` when it was not given. */
export function stringFlag(values: ParsedArgs['values'], name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A whole-number flag from `min` to `max`, `fallback` when not given; a {@link UsageError} otherwise. */
export function integerFlag(
  values: ParsedArgs['values'],
  name: string,
  { min, max, fallback }: { min: number; max: number; fallback: number },
): number {
  const text = stringFlag(values, name);
  if (text === undefined) return fallback;
  const value = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw new UsageError(`--${name} ${text}: a whole number from ${min} to ${max}`);
  return value;
}
