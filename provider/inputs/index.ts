export * from "./check-inputs";
export * from "./dmarc-inputs";
export * from "./domain-inputs";
export * from "./names";
export * from "./route-inputs";
export * from "./unknown";
export * from "./verification-inputs";
export * from "./claimed-record-inputs";
