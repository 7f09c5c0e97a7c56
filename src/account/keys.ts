/** Prefix of account API keys, so a leaked key is recognisable and a misplaced one is explained. */
export const ACCOUNT_KEY_PREFIX = 'mpak_';
/** Prefix of sub-account API keys. */
export const SUBACCOUNT_KEY_PREFIX = 'mpsk_';
