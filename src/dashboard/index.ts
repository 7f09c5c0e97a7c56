/**
 * `mailplane/dashboard`: the web console, an HTTP handler mounted next to the API with the same
 * bridges (docs/dashboard.md).
 *
 * @packageDocumentation
 * @module mailplane/dashboard
 */
export {
  createDashboard,
  withDashboard,
  CSRF_HEADER,
  DEFAULT_SESSION_TTL_MS,
  type DashboardOptions,
} from './handler.js';
export { CONTENT_SECURITY_POLICY } from './page.js';
export { SESSION_COOKIE } from './cookies.js';
export { ACT_AS_HEADER } from './proxy.js';
