import { DoctorUsageError, doctorOptions } from "../../provider/doctor/options";

const KEY = "SecretKey0123456789abcd";
const ENV = { EMAIL_DELIVERY_BASE_URL: "http://127.0.0.1:7700", EMAIL_DELIVERY_API_KEY: KEY };

describe("the doctor's options", () => {
  it("reads the providers' variables; a flag overrides each", () => {
    expect(doctorOptions(["doctor", "mail.example.com"], ENV)).toMatchObject({
      domain: "mail.example.com",
      baseUrl: ENV.EMAIL_DELIVERY_BASE_URL,
      apiKey: KEY,
      json: false,
      apiKeyFromFlag: false,
    });
    expect(
      doctorOptions(
        ["doctor", "m.example.com", "--base-url", "http://127.0.0.1:1", "--api-key", "Other"],
        ENV,
      ),
    ).toMatchObject({ baseUrl: "http://127.0.0.1:1", apiKey: "Other", apiKeyFromFlag: true });
  });

  it.each([
    [[], "no command"],
    [["doctor"], "no domain"],
    [["doctor", "a.example.com", "b.example.com"], "one domain at a time"],
    [["doctor", "a.example.com", "--colour"], "--colour"],
    [["doctor", "a.example.com", "--dns", "localhost:53"], "--dns: must be the IP address of a DNS server"],
    // node:dns's own check takes port 99999 for another port, and aborts the process on port 0.
    [["doctor", "a.example.com", "--dns", "127.0.0.1:99999"], "--dns: must be the IP address"],
    [["doctor", "a.example.com", "--dns", "127.0.0.1:0"], "--dns: must be the IP address"],
    [["doctor", "a.example.com", "--base-url", "ftp://x"], "not an http(s) URL"],
  ])("%j is a usage error naming why", (args, reason) => {
    expect(() => doctorOptions(args, ENV)).toThrow(DoctorUsageError);
    expect(() => doctorOptions(args, ENV)).toThrow(reason);
  });

  it("names the missing setting's variable and flag", () => {
    expect(() => doctorOptions(["doctor", "a.example.com"], {})).toThrow(
      "no base URL: set EMAIL_DELIVERY_BASE_URL, or pass --base-url",
    );
    expect(() => doctorOptions(["doctor", "a.example.com"], { EMAIL_DELIVERY_BASE_URL: "http://x" })).toThrow(
      "no API key: set EMAIL_DELIVERY_API_KEY, or pass --api-key",
    );
  });
});

describe("--dns and --records", () => {
  it("--dns takes one server or several, comma-separated, each with its port when not 53", () => {
    expect(doctorOptions(["doctor", "a.example.com", "--dns", "127.0.0.1:7753"], ENV)).toMatchObject({
      nameservers: ["127.0.0.1:7753"],
    });
    expect(
      doctorOptions(["doctor", "a.example.com", "--dns", "127.0.0.1:7753, 127.0.0.1:7754,[::1]"], ENV),
    ).toMatchObject({ nameservers: ["127.0.0.1:7753", "127.0.0.1:7754", "[::1]"] });
    expect(doctorOptions(["doctor", "a.example.com"], ENV)).not.toHaveProperty("nameservers");
  });

  it.each([["127.0.0.1:7753,"], [","], ["127.0.0.1:7753,localhost"]])(
    "--dns %j is a usage error",
    (value) => {
      expect(() => doctorOptions(["doctor", "a.example.com", "--dns", value], ENV)).toThrow(/^--dns: /);
    },
  );

  it("--records takes a file or - (stdin); an empty one is a usage error", () => {
    expect(doctorOptions(["doctor", "a.example.com", "--records", "out.json"], ENV)).toMatchObject({
      records: "out.json",
    });
    expect(doctorOptions(["doctor", "a.example.com", "--records", "-"], ENV)).toMatchObject({ records: "-" });
    expect(() => doctorOptions(["doctor", "a.example.com", "--records="], ENV)).toThrow("--records: no file");
  });
});
