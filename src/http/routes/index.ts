import type { AnyRoute } from '../route.js';
import { subAccountRoutes } from './sub-accounts.js';

/** The route table of the whole `/api/v1` surface. */
export const apiRoutes: readonly AnyRoute[] = [...subAccountRoutes];
