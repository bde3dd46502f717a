export * from "./client";
export * from "./errors";
export * from "./retry";
export * from "./types";
export { parseRetryAfter, interpretAnswer, kindForCode, kindForHttpStatus } from "./interpret";
