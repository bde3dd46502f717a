import * as dgram from "node:dgram";
import { createVerificationProvider } from "../../provider/dynamic/verification-provider";
import type { DnsRecord } from "../../provider/client";
import { ALL_CHECKS_OK } from "../support/checks";
import { InstantClock, instantClock } from "../support/fake-clock";
import { configureRequest, failure, verificationInputs } from "../support/providers";
import { envelope, startScriptedServer } from "../support/scripted-server";
import { serviceRecords } from "../support/receivers-world";

/**
 * Adversarial review of the verification provider's receivers' step (verification-provider.ts):
 * the service passes, DNS does not answer receivers' lookups. The rule: a DNS answer that cannot
 * be had is never read as a pass, not by the wait, and not by a later refresh either.
 */

const KEY = "ScriptedKey0000000000001";
const CHECK_OK = {
  spf_status: "OK",
  spf_error: null,
  dkim_status: "OK",
  dkim_error: null,
  mx_status: "OK",
  mx_error: null,
  return_path_status: "OK",
  return_path_error: null,
};

describe("a wait whose receivers' judgement DNS never answered", () => {
  let clock: InstantClock;
  beforeEach(() => (clock = instantClock()));
  const provider = createVerificationProvider({ now: () => clock.now(), sleep: (ms) => clock.sleep(ms) });

  // A DNS "server" that swallows every query: receivers' lookups time out (never answered).
  let silent: dgram.Socket;
  beforeAll(async () => {
    silent = dgram.createSocket("udp4");
    await new Promise<void>((resolve) => silent.bind(0, "127.0.0.1", resolve));
    process.env.EMAIL_DELIVERY_DNS_NAMESERVERS = `127.0.0.1:${silent.address().port}`;
  });
  afterAll(() => {
    delete process.env.EMAIL_DELIVERY_DNS_NAMESERVERS;
    silent.close();
  });

  async function scripted() {
    const server = await startScriptedServer([{ status: 200, body: envelope(CHECK_OK) }]);
    await provider.configure(
      configureRequest({ "emailDelivery:baseUrl": server.url, "emailDelivery:apiKey": KEY }),
    );
    return server;
  }

  const records: DnsRecord[] = serviceRecords("mail.example.com");

  it("ends not verified, and a refresh (read) keeps it not verified: accepted null is no pass", async () => {
    const server = await scripted();
    try {
      const inputs = {
        ...verificationInputs(51, { timeoutSeconds: 8, dnsRecords: records }),
        whenReceiversReject: "fail" as const,
      };
      const error = await failure(provider.create(inputs));
      const stored = error.properties as Record<string, unknown>;
      expect(stored).toMatchObject({ verified: false });
      expect((stored.receivers as { accepted: unknown } | undefined)?.accepted ?? null).toBeNull();

      // `pulumi refresh` (or `up --refresh`): the service still passes, DNS was never judged.
      const read = await provider.read("51", stored as never);
      expect(read.props).toMatchObject({ verified: false });
    } finally {
      await server.close();
    }
  }, 60_000);

  it("a refresh of state whose judgement timed out (no receivers recorded) keeps it not verified", async () => {
    const server = await scripted();
    try {
      const state = {
        ...verificationInputs(52, { timeoutSeconds: 8, dnsRecords: records }),
        whenReceiversReject: "fail" as const,
        ...ALL_CHECKS_OK,
        verified: false,
      };
      const read = await provider.read("52", state as never);
      expect(read.props).toMatchObject({ verified: false });
      // …and then the next `up` would not wait at all: update() of a verified state with no change.
    } finally {
      await server.close();
    }
  }, 60_000);

  it("a refresh after a wait that timed out on the service's checks never reports verified without receivers' judgement", async () => {
    // The wait ended before the service passed (DNS still propagating): nothing was judged. By the
    // refresh the service passes; receivers may well reject (a second SPF record): never judged.
    const server = await scripted();
    try {
      const state = {
        ...verificationInputs(53, { timeoutSeconds: 8, dnsRecords: records }),
        whenReceiversReject: "fail" as const,
        ...ALL_CHECKS_OK,
        spfStatus: "Missing",
        spfError: "No SPF record exists for this domain",
        verified: false,
      };
      const read = await provider.read("53", state as never);
      expect(read.props).toMatchObject({ spfStatus: "OK" });
      expect(read.props).toMatchObject({ verified: false });
    } finally {
      await server.close();
    }
  }, 60_000);
});
