export * from "./dmarc";
export * from "./dmarc-args";
export * from "./existing-records";
export * from "./ownership";
export * from "./cloudflare-records";
export * from "./spf";
export * from "./spf-record";
export * from "./spf-dns";
export { evaluateSpf } from "./spf-evaluate";
export { SPF_MX_NAME_LIMIT, SPF_VOID_LOOKUP_LIMIT } from "./spf-evaluation-types";
export type {
  SpfError,
  SpfErrorKind,
  SpfEvaluation,
  SpfFamily,
  SpfLookupNode,
  SpfUnresolved,
} from "./spf-evaluation-types";
export * from "./spf-lookup-count";
export * from "./spf-macro";
export * from "./spf-syntax";
export * from "./spf-lookups";
export * from "./server-address";
export * from "./txt";
export * from "./zone-records";
