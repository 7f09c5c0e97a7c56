/** How mailplane delivers mail over SMTP. */
export interface DeliveryConfig {
  /** TCP port of recipients' MX hosts: 25 on the internet; a loopback sink's port in tests. */
  mxPort: number;
}

/** Defaults for delivery on the public internet. */
export const defaultDeliveryConfig: DeliveryConfig = { mxPort: 25 };

/** Fills the unset fields of a partial configuration with {@link defaultDeliveryConfig}. */
export function resolveDeliveryConfig(partial: Partial<DeliveryConfig> = {}): DeliveryConfig {
  return { ...defaultDeliveryConfig, ...partial };
}
