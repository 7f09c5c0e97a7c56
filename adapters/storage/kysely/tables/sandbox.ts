import type { DbId, DbInt } from '../schema.js';

/** One message captured by the sandbox mail catcher. */
export interface SandboxMessagesTable {
  id: DbId;
  account_id: DbInt;
  message_id: string | null;
  mail_from: string;
  rcpt_to: string;
  subject: string;
  /** Base64 of the message as received. */
  raw: string;
  received: DbInt;
}

/** Tables of the sandbox area. */
export interface SandboxTables {
  sandbox_messages: SandboxMessagesTable;
}
