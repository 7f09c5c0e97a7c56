import type { AnyRoute } from '../route.js';

// PLACEHOLDER: filled by the helper that owns this area; remove this comment.
export const domainRoutes: AnyRoute[] = [];
