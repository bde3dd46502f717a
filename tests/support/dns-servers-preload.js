// Loaded with `node --require` into a process a test starts (a dynamic-provider host): points
// node:dns at the DNS server in TEST_DNS_SERVER (the test's emulator, on 127.0.0.1), so what the
// process resolves (the SPF check of a merge) is asked there and nowhere else.
const server = process.env.TEST_DNS_SERVER;
if (server) require("node:dns").setServers([server]);
