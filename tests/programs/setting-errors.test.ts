import { Domain } from "../../provider";
import { uniqueDomain, useEmulator } from "../support/emulator";
import { runProgram } from "../../testing";

/**
 * Errors a user's settings cause, as a program run shows them: the first line names the resource or
 * the setting, says what is wrong, and what to do.
 */
describe("errors of a program's settings", () => {
  const emulator = useEmulator();
  const firstLines = (run: { errors: { message: string }[] }) =>
    run.errors.map((error) => error.message.split("\n")[0]);

  it("a domain name with a space: the Domain, its name, the space, and the fix; nothing registered", async () => {
    const run = await runProgram(
      () => {
        const zoneId = emulator().cloudflare.zones[0].id;
        new Domain("mail", { name: "my domain.example.com", cloudflare: { zoneId }, verification: false });
        return {};
      },
      { mode: "preview", emulator: emulator() },
    );
    expect(firstLines(run)).toEqual([
      'Domain mail: name "my domain.example.com" has a space ("my domain"): a domain name has none: remove it, ' +
        'or write "-" ("my-domain.example.com")',
    ]);
    expect(run.registrations.filter((r) => r.type !== "pulumi:pulumi:Stack")).toEqual([]);
  });

  it("a zone id that is none of the token's zones: the Domain, cloudflare.zoneId, and what to check", async () => {
    const zoneId = "0123456789abcdef0123456789abcdef";
    const run = await runProgram(
      () => {
        new Domain("mail", { name: "mail.example.com", cloudflare: { zoneId }, verification: false });
        return {};
      },
      { mode: "preview", emulator: emulator() },
    );
    expect(firstLines(run)).toEqual([
      `Domain mail: cloudflare.zoneId "${zoneId}" is not a zone the Cloudflare provider's token can reach: check ` +
        "the zone's id in the Cloudflare dashboard (the zone → Overview → Zone ID), and that the API token lists " +
        "that zone under Zone Resources.",
    ]);
    // Cloudflare's own words follow.
    expect(run.errors[0].message).toContain("1001 Invalid zone identifier");
  });

  it("an international name not in punycode: its punycode", async () => {
    const run = await runProgram(
      () => {
        new Domain("intl", { name: "bücher.example.com", verification: false });
        return {};
      },
      { mode: "preview", emulator: emulator() },
    );
    expect(firstLines(run)).toEqual([
      'Domain intl: name "bücher.example.com" has characters outside ASCII ("bücher"): give the international ' +
        'name in punycode: "xn--bcher-kva.example.com"',
    ]);
  });

  it("an API key the service refuses, at a first up: which key and what to set, without HTTP 200 or a double period", async () => {
    const run = await runProgram(
      () => {
        new Domain("mail", { name: uniqueDomain("refused"), verification: false });
        return {};
      },
      { mode: "live", emulator: emulator(), config: { "emailDelivery:apiKey": "WrongKey0000000000000001" } },
    );
    expect(firstLines(run)).toEqual([
      "The email service refused the API key from stack config `emailDelivery:apiKey` (InvalidServerAPIKey): " +
        "set a server API key of type API, from the mail server this stack manages (Postal: the server → Credentials), " +
        "with `pulumi config set --secret emailDelivery:apiKey …`.",
    ]);
    const message = run.errors[0].message;
    expect(message).not.toContain("HTTP 200");
    expect(message).not.toContain("..");
    expect(emulator().state.domains.filter((d) => d.name.startsWith("refused"))).toEqual([]);
  });
});
