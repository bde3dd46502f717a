// `pulumi-email-delivery/emulator`: the local email service, Cloudflare DNS-records API and DNS
// server, for developing and testing programs without the real services. Nothing of the package's
// resources or providers loads it.
export * from "./start";
export * from "./config";
export * from "./http/faults";
export * from "./http/request-log";
export type { EmulatorState } from "./store/state";
export { runCli } from "./cli";
