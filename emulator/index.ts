export * from "./start";
export * from "./config";
export * from "./http/faults";
export * from "./http/request-log";
export type { EmulatorState } from "./store/state";
