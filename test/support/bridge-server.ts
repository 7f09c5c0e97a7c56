/**
 * A test instance's API at `/api/v1` and its dashboard at `/dashboard`, served on 127.0.0.1 through
 * one of the three bridges (node:http, Express, Koa), mounted as the examples mount them.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Koa from 'koa';
import { toExpress } from 'mailplane/express';
import { toKoa } from 'mailplane/koa';
import { toNodeHandler } from 'mailplane/node';
import { createDashboard } from 'mailplane/dashboard';
import type { TestApi } from './api.js';

/** The bridges, by the name a test reports. */
export const BRIDGES = ['node', 'express', 'koa'] as const;

/** One of {@link BRIDGES}. */
export type BridgeName = (typeof BRIDGES)[number];

function listenerFor(bridge: BridgeName, api: Pick<TestApi, 'mailplane'>): RequestListener {
  const dashboard = createDashboard(api.mailplane);
  if (bridge === 'express') {
    return express()
      .use('/api/v1', toExpress(api.mailplane.handle))
      .use('/dashboard', toExpress(dashboard)) as RequestListener;
  }
  if (bridge === 'koa') {
    return new Koa()
      .use(toKoa(api.mailplane.handle, { prefix: '/api/v1' }))
      .use(toKoa(dashboard, { prefix: '/dashboard' }))
      .callback();
  }
  const apiListener = toNodeHandler(api.mailplane.handle, { prefix: '/api/v1' });
  const dashboardListener = toNodeHandler(dashboard, { prefix: '/dashboard' });
  return (req, res) => ((req.url ?? '').startsWith('/dashboard') ? dashboardListener(req, res) : apiListener(req, res));
}

/** A listening server: its port and how to stop it. */
export interface BridgeServer {
  port: number;
  close(): Promise<void>;
}

/** Serves `api`'s instance through `bridge` on a fresh port. */
export async function startBridgeServer(bridge: BridgeName, api: Pick<TestApi, 'mailplane'>): Promise<BridgeServer> {
  const server: Server = createServer(listenerFor(bridge, api));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
