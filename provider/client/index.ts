export * from "./client";
export * from "./domain-creation";
export * from "./errors";
export * from "./retry";
export * from "./settings";
export * from "./types";
export { findDomain, isNameTaken, sameDomainName } from "./natural-keys";
export { parseRetryAfter, interpretAnswer, kindForCode, kindForHttpStatus } from "./interpret";
