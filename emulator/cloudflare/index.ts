export { cloudflareService } from "./service";
export type { CloudflareServiceContext } from "./service";
export { addZone, zoneNameServers } from "./zones";
