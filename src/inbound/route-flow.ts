/**
 * Whether an inbound route's receiver is slow, as this process sees its POSTs: it is when one of
 * them has been under way for {@link SLOW_POST_MS} or more, or the last one to end took that long or
 * got no answer. A backlog of a route that is not slow may wait for its slots in greater numbers
 * (src/inbound/webhook-job.ts): its receiver answers, so they are soon served. A receiver that hangs
 * is slow within {@link SLOW_POST_MS} of its first POST.
 */

/** How long a POST may take before its route's receiver counts as slow. */
export const SLOW_POST_MS = 1_000;

/** Routes remembered at once before the idle ones are dropped. */
const PRUNE_ABOVE = 1_024;

interface RoutePosts {
  /** Start times (monotonic ms) of the POSTs under way. */
  underWay: Set<{ startedAt: number }>;
  /** Whether the last POST to end took {@link SLOW_POST_MS} or more, or got no answer. */
  lastWasSlow: boolean;
}

/** The POSTs of each route in this process, by route id. */
export class RouteFlow {
  private readonly routes = new Map<number, RoutePosts>();

  /** Notes a POST to `routeId` starting; call the answer when it ends, saying whether the receiver answered. */
  begin(routeId: number): (answered: boolean) => void {
    let posts = this.routes.get(routeId);
    if (!posts) {
      if (this.routes.size >= PRUNE_ABOVE) this.prune();
      this.routes.set(routeId, (posts = { underWay: new Set(), lastWasSlow: false }));
    }
    const post = { startedAt: performance.now() };
    posts.underWay.add(post);
    const route = posts;
    return (answered) => {
      route.underWay.delete(post);
      route.lastWasSlow = !answered || performance.now() - post.startedAt >= SLOW_POST_MS;
    };
  }

  /** Whether the receiver of `routeId` is slow (see the module comment). */
  slow(routeId: number): boolean {
    const posts = this.routes.get(routeId);
    if (!posts) return false;
    if (posts.lastWasSlow) return true;
    const now = performance.now();
    for (const post of posts.underWay) if (now - post.startedAt >= SLOW_POST_MS) return true;
    return false;
  }

  /** Drops the routes with nothing under way: a route seen again starts as not slow. */
  private prune(): void {
    for (const [id, posts] of this.routes) if (posts.underWay.size === 0) this.routes.delete(id);
  }
}
