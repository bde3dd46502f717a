export * from "./dmarc";
export * from "./existing-records";
export * from "./ownership";
export * from "./records";
export * from "./spf";
export * from "./spf-lookups";
export * from "./txt";
