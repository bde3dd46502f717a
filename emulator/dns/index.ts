export { startDnsServer } from "./server";
export type { DnsServerOptions, RunningDnsServer } from "./server";
