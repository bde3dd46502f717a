export * from "./client";
export * from "./domain-creation";
export * from "./errors";
export { backoffDelay, defaultRetryPolicy, parseRetryAfter, type RetryPolicy } from "./retry";
export * from "./settings";
export * from "./types";
export { findDomain, isAnswerLostObjectExists, isNameTaken, sameDomainName } from "./natural-keys";
export { interpretAnswer, kindForCode, kindForHttpStatus } from "./interpret";
