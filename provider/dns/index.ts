export * from "./records";
export * from "./txt";
