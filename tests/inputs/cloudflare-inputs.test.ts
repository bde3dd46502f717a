import { ttlProblem, zoneIdProblem } from "../../provider/inputs";

describe("ttlProblem", () => {
  it.each([1, 60, 300, 86400])("accepts %i", (ttl) => expect(ttlProblem(ttl)).toBeUndefined());
  it.each([0, 30, 59, 86401, 300.5])("refuses %i", (ttl) =>
    expect(ttlProblem(ttl)).toBe(
      `must be 1 (automatic) or a whole number of seconds from 60 to 86400, not ${ttl}`,
    ),
  );
});

describe("zoneIdProblem", () => {
  it("accepts Cloudflare's 32 hex digits", () =>
    expect(zoneIdProblem("023e105f4ecef8ad9ca31a8372d0c353")).toBeUndefined());
  it.each([
    "replace-me-with-your-zone-id",
    "example.com",
    "023E105F4ECEF8AD9CA31A8372D0C353",
    "023e105f4ecef8ad9ca31a8372d0c35",
    "",
  ])("refuses %j, naming what it got and where the id is", (zoneId) =>
    expect(zoneIdProblem(zoneId)).toBe(
      "must be the zone's id, 32 hex digits (Cloudflare dashboard → the zone → Overview → Zone ID), " +
        `not ${JSON.stringify(zoneId)}`,
    ),
  );
});
