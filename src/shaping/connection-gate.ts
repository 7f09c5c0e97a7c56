/** A shared count of open connections of one source × destination, kept by traffic shaping for the transport (`DeliveryRoute.connections`, src/delivery/transport.ts). */
export interface ConnectionGate {
  /** Asks for one more connection; `false`: not now (use an open one, or hand the message back). Never rejects. */
  open(): Promise<boolean>;
  /** One connection that {@link open} allowed has closed. */
  closed(): void;
}
