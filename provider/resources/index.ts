export * from "./claimed-dns-record";
export * from "./domain";
export type { ExistingRecordsArgs } from "./publishing/existing-record-policies";
export * from "./domain-verification";
export * from "./get-domain";
export * from "./route";
