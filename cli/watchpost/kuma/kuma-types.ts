/** The fields of an Uptime Kuma monitor the importer reads (its JSON backup's monitorList and its `monitor` table share them). */
export interface KumaMonitor {
  id: number;
  name: string;
  type: string;
  active?: boolean | number;
  parent?: number | null;
  url?: string | null;
  method?: string | null;
  hostname?: string | null;
  port?: number | null;
  interval?: number;
  retryInterval?: number;
  timeout?: number | null;
  maxretries?: number;
  keyword?: string | null;
  invertKeyword?: boolean | number;
  jsonPath?: string | null;
  expectedValue?: string | null;
  ignoreTls?: boolean | number;
  upsideDown?: boolean | number;
  maxredirects?: number;
  accepted_statuscodes?: string[] | string | null;
  accepted_statuscodes_json?: string | null;
  dns_resolve_type?: string | null;
  dns_resolve_server?: string | null;
  headers?: string | null;
  body?: string | null;
  authMethod?: string | null;
  basic_auth_user?: string | null;
  basic_auth_pass?: string | null;
  expiryNotification?: boolean | number;
  packetSize?: number;
  tags?: { name: string; value?: string | null }[];
  notificationIDList?: Record<string, boolean>;
}

export interface KumaNotification {
  id: number;
  name: string;
  /** The notification's settings as a JSON string (its `type` inside). */
  config: string;
  active?: boolean | number;
}

export interface KumaBackup {
  version?: string;
  notificationList?: KumaNotification[];
  monitorList: KumaMonitor[];
}
