import { checkBaseUrl } from "../../provider/client/base-url";

describe("checkBaseUrl", () => {
  it.each(["https://postal.example.com", "http://127.0.0.1:7700/", "https://api.cloudflare.com/client/v4"])(
    "accepts %s",
    (baseUrl) => expect(checkBaseUrl(baseUrl)).toEqual({ ok: true, url: new URL(baseUrl) }),
  );

  it.each([
    ["postal.example.com", "not-a-url"],
    ["", "not-a-url"],
    ["ftp://postal.example.com", "scheme"],
    ["file:///etc/passwd", "scheme"],
    ["https://user:secret@postal.example.com", "credentials"],
    ["https://user@postal.example.com", "credentials"],
  ])("refuses %j: %s", (baseUrl, problem) =>
    expect(checkBaseUrl(baseUrl)).toMatchObject({ ok: false, problem }),
  );
});
