export * from "./domain";
export type { DomainCloudflareArgs } from "./domain-records";
export * from "./domain-verification";
export * from "./get-domain";
export * from "./route";
