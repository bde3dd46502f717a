export { emailApiService } from "./service";
export type { EmailApiContext } from "./context";
export { seedServer } from "./seed";
export type { SeedServerOptions } from "./seed";
export { evaluateDnsCheck } from "./dns-check";
export type { DnsAnswers, DnsCheckExpectation, DnsCheckResult } from "./dns-check";
export { dnsRecordsFor, domainHosts } from "./dns-records";
export type { DnsRecordJson, DnsRecordPurpose, DomainHosts } from "./dns-records";
