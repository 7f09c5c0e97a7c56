/**
 * A real HTTP server on 127.0.0.1 serving a test instance's API at /api/v1 and its dashboard at
 * /dashboard, as the examples mount them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDashboard, type DashboardOptions } from 'mailplane/dashboard';
import { toNodeHandler } from 'mailplane/node';
import type { TestApi } from './api.js';

/** The listening server and its origin (`http://127.0.0.1:<port>`). */
export interface DashboardServer {
  origin: string;
  close(): Promise<void>;
}

/** Serves `api`'s instance on a fresh port. */
export async function startDashboardServer(
  api: Pick<TestApi, 'mailplane'>,
  options: DashboardOptions = {},
): Promise<DashboardServer> {
  const apiHandler = toNodeHandler(api.mailplane.handle, { prefix: '/api/v1' });
  const dashboard = toNodeHandler(createDashboard(api.mailplane, options), { prefix: '/dashboard' });
  const server: Server = createServer((req, res) =>
    (req.url ?? '').startsWith('/dashboard') ? dashboard(req, res) : apiHandler(req, res),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
