/**
 * The lines a failed command prints on stderr and the exit status it ends with: one line per bad
 * variable (the schema's words, as the example servers print them), the hint to `--help` after a
 * usage error, else the error and its causes on one line.
 */
import { ConfigurationError, describeProblem } from '../examples/shared/config-schema.js';
import { failureWords } from '../examples/shared/startup.js';
import { EXIT, reportUsageError, UsageError, type FailureReport } from './command.js';

/** How `error` is reported by the command `commandName` (undefined before a command is known). */
export function reportFailure(error: unknown, commandName?: string): FailureReport {
  if (error instanceof UsageError) return reportUsageError(error, commandName);
  if (error instanceof ConfigurationError)
    return { lines: error.problems.map((problem) => `mailplane: ${describeProblem(problem)}`), exitCode: EXIT.failed };
  return { lines: [`mailplane: ${failureWords(error)}`], exitCode: EXIT.failed };
}
