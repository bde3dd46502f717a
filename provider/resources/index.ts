export * from "./domain";
export * from "./domain-verification";
export * from "./route";
