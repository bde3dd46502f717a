// Run by tests/testing/no-network.test.ts in a process of its own (inside a network namespace with
// loopback only, traced by strace): the built test kit as a user's test uses it, a preview and a
// live run of a program whose Domains merge into SPF records that include a name only the
// emulator's DNS serves, and getDomain. Prints what the runs gave, as JSON, on stdout.
"use strict";
const { runProgram, startEmulator } = require("pulumi-email-delivery/testing");
const { Domain, getDomainOutput } = require("pulumi-email-delivery");

/** Names no DNS but the emulator's serves (example.com's real servers answer NXDOMAIN for them). */
const ONLY_HERE = "only-in-emulator.example.com";
const INCLUDE = `_spf.${ONLY_HERE}`;
const HOST = `h.${ONLY_HERE}`;
/** The included record costs 1 (the include) + 8 (`a:` terms); the user records below 9 and 10. */
const INCLUDED_SPF = `v=spf1 ${`a:${HOST} `.repeat(8)}-all`;
const SPF_OF = {
  "fits.example.com": `v=spf1 include:${INCLUDE} ~all`,
  "full.example.com": `v=spf1 include:${INCLUDE} a:${HOST} ~all`,
};

async function main() {
  const emulator = await startEmulator();
  try {
    const zoneId = emulator.cloudflare.zones[0].id;
    const records = `${emulator.cloudflare.url}/zones/${zoneId}/dns_records`;
    const cloudflare = async (method, url, body) => {
      const response = await globalThis.fetch(url, {
        method,
        headers: {
          Authorization: `Bearer ${emulator.cloudflare.apiToken}`,
          "Content-Type": "application/json",
        },
        body: body && JSON.stringify(body),
      });
      const answer = await response.json();
      if (!answer.success) throw new Error(`${method} ${url}: ${JSON.stringify(answer.errors)}`);
      return answer.result;
    };
    const publish = (type, name, content) =>
      cloudflare("POST", records, { type, name, content, ttl: 300, proxied: false });
    await publish("TXT", INCLUDE, `"${INCLUDED_SPF}"`);
    await publish("A", HOST, "192.0.2.53");
    await publish("AAAA", HOST, "2001:db8::53");
    for (const [name, spf] of Object.entries(SPF_OF)) await publish("TXT", name, `"${spf}"`);

    const merging = (resource, name) =>
      new Domain(resource, {
        name,
        cloudflare: { zoneId, existingRecords: { spf: "merge" } },
        verification: { timeoutSeconds: 30, pollIntervalSeconds: 1 },
      });
    const summary = (run) => ({
      errors: run.errors.map((error) => error.message),
      programLogs: run.programLogs,
      providerLogs: run.providerLogs,
      outputs: run.outputs,
    });

    // The new domain whose record needs 10 lookups fails (the service's include makes 11); 9 fits.
    const preview = await runProgram(
      () => {
        merging("fits", "fits.example.com");
        merging("full", "full.example.com");
        return {};
      },
      { mode: "preview", emulator },
    );
    const live = await runProgram(
      () => {
        const domain = merging("fits", "fits.example.com");
        const found = getDomainOutput({ name: domain.domainId.apply(() => "fits.example.com") });
        return { verified: domain.verified, found: found.apply((info) => [info.name, info.spfStatus]) };
      },
      { mode: "live", emulator },
    );
    const spf = (await cloudflare("GET", `${records}?name.exact=fits.example.com&type=TXT`)).map((record) =>
      record.content.replace(/^"|"$/g, ""),
    );
    process.stdout.write(JSON.stringify({ preview: summary(preview), live: summary(live), spf }));
  } finally {
    await emulator.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
