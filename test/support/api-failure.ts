/** Reading the typed client's errors in tests. */
import { MailplaneApiError } from 'mailplane/client';

/** The MailplaneApiError `call` fails with; fails the test when it succeeds or fails otherwise. */
export async function apiFailure(call: Promise<unknown>): Promise<MailplaneApiError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof MailplaneApiError) return error;
    throw error;
  }
  throw new Error('the call succeeded; a MailplaneApiError was expected');
}
