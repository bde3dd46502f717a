export * from "./dmarc";
export * from "./records";
export * from "./txt";
export * from "./spf";
