export * from "./domain-provider";
export * from "./route-provider";
export * from "./verification-provider";
export { CONNECTION_SETTINGS } from "./connection";
