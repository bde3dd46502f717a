import { domainProvider } from "../../provider/dynamic";
import { forgetConfig } from "../../provider/dynamic/configured";
import { serviceClient } from "../../provider/dynamic/connection";
import { keyProblem } from "../../provider/client/key-check";
import { createClient } from "../../provider/client";
import { useEmulator } from "../support/emulator";
import { configureRequest, failure } from "../support/providers";

describe("a key that cannot go in an HTTP header", () => {
  const emulator = useEmulator();
  const good = "GoodKey00000000000000001";

  it.each([
    [`${good}\n`, "ends with a line break (U+000A) (character 25 of 25)"],
    [` ${good}`, "starts with a space (character 1 of 25)"],
    [`Good\u0000Key0000000000000001`, "holds a NUL character (U+0000) (character 5 of 24)"],
    [`GoodKey0000000000000000\u00e9`, "holds a character outside ASCII (U+00E9) (character 24 of 24)"],
    [`GoodКлюч0000000000000001`, "holds a character outside ASCII (U+041A) (character 5 of 24)"],
  ])(
    "%j fails at once, naming the problem and where the key came from, sending nothing",
    async (key, problem) => {
      expect(keyProblem(key)).toContain(problem);
      forgetConfig();
      await domainProvider.configure(
        configureRequest({ "emailDelivery:baseUrl": emulator().emailApi.url, "emailDelivery:apiKey": key }),
      );
      emulator().requests.clear();
      const error = await failure(
        domainProvider.read("1", { name: "x.example.com", adopt: false, dnsRecords: [] }),
      );
      expect(error.message).toContain("The email delivery API key from stack config `emailDelivery:apiKey`");
      expect(error.message).toContain("Nothing was sent.");
      expect(error.message).not.toContain(key.trim());
      expect(error.message).not.toContain("GoodКлюч");
      expect(emulator().requests.all()).toHaveLength(0);
      forgetConfig();
    },
  );

  it("also in the environment, and in a client built directly", () => {
    const saved = { ...process.env };
    try {
      forgetConfig();
      process.env.EMAIL_DELIVERY_API_KEY = `${good}\r\n`;
      process.env.EMAIL_DELIVERY_BASE_URL = emulator().emailApi.url;
      expect(() => serviceClient()).toThrow(
        "The email delivery API key from the EMAIL_DELIVERY_API_KEY environment variable ends with a line break",
      );
    } finally {
      process.env = saved;
    }
    expect(() => createClient({ baseUrl: emulator().emailApi.url, apiKey: `${good}\n` })).toThrow(
      "The email delivery API key ends with a line break (U+000A) (character 25 of 25)",
    );
  });
});
