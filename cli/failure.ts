/**
 * The lines a failed command prints on stderr and the exit status it ends with: one line per bad
 * variable (the schema's words, as the example servers print them), the hint to `--help` after a
 * usage error, else the error and its causes on one line.
 */
import { ConfigurationError, describeProblem } from '../examples/shared/config-schema.js';
import { failureWords } from '../examples/shared/startup.js';
import { EXIT, UsageError } from './command.js';

/** What a failure prints and the status the process exits with. */
export interface FailureReport {
  lines: string[];
  exitCode: number;
}

/** How `error` is reported by the command `commandName` (undefined before a command is known). */
export function reportFailure(error: unknown, commandName?: string): FailureReport {
  if (error instanceof UsageError) {
    const help = commandName ? `mailplane ${commandName} --help` : 'mailplane --help';
    return { lines: [`mailplane: ${error.message}`, `Run \`${help}\` for its usage.`], exitCode: EXIT.usage };
  }
  if (error instanceof ConfigurationError)
    return { lines: error.problems.map((problem) => `mailplane: ${describeProblem(problem)}`), exitCode: EXIT.failed };
  return { lines: [`mailplane: ${failureWords(error)}`], exitCode: EXIT.failed };
}
