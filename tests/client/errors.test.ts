import { EmailApiError, isEmailApiError, withDetails } from "../../provider/client";
import { runInNewContext } from "node:vm";
import { isCloudflareApiError } from "../../provider/cloudflare/api-request";
import { PartialWriteError } from "../../provider/dynamic/stored-provider";

describe("EmailApiError", () => {
  const details = {
    operation: "domains/check",
    kind: "not-found",
    code: "DomainNotFound",
    httpStatus: 200,
    serviceMessage: "No domain with id 9 found on this server",
  } as const;

  it("is a real Error subclass: its name, message and stack say what it is", () => {
    const error = new EmailApiError(details);
    expect(error).toBeInstanceOf(EmailApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("EmailApiError");
    expect(error.message).toBe(
      "domains/check failed (not-found): [DomainNotFound] No domain with id 9 found on this server.",
    );
    expect(error.stack).toMatch(/^EmailApiError: domains\/check failed/);
  });

  it("holds only the details given, as own properties", () => {
    const error = new EmailApiError({ ...details, attempts: undefined });
    expect(Object.keys(error).sort()).toEqual(
      ["code", "httpStatus", "kind", "name", "operation", "serviceMessage"].sort(),
    );
    expect(withDetails(error, { attempts: 3 })).toMatchObject({ ...details, attempts: 3 });
  });

  it("is recognised by isEmailApiError when another copy of the modules made it", () => {
    let Other: typeof EmailApiError | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      Other = (require("../../provider/client/errors") as { EmailApiError: typeof EmailApiError })
        .EmailApiError;
    });
    if (!Other) throw new Error("the isolated copy did not load");
    const fromOtherCopy = new Other(details);
    expect(fromOtherCopy).not.toBeInstanceOf(EmailApiError);
    expect(isEmailApiError(fromOtherCopy)).toBe(true);
  });

  it("is recognised by isEmailApiError when another realm made it (the kit's providers run in Node's)", () => {
    const OtherRealmError = runInNewContext("Error") as ErrorConstructor;
    const fromOtherRealm = Object.assign(new OtherRealmError(details.serviceMessage), {
      ...details,
      name: "EmailApiError",
    });
    expect(fromOtherRealm).not.toBeInstanceOf(Error);
    expect(isEmailApiError(fromOtherRealm)).toBe(true);
    const cloudflare = Object.assign(new OtherRealmError("Cloudflare read failed"), { codes: [81044] });
    expect(isCloudflareApiError(cloudflare)).toBe(true);
    expect(isEmailApiError({ ...details, name: "EmailApiError" })).toBe(false);
  });
});

describe("PartialWriteError", () => {
  it("carries what Pulumi's dynamic-provider host reads for an initialization failure", () => {
    const cause = new Error("socket hang up");
    const error = new PartialWriteError(
      "half done",
      "42",
      { verified: false, __provider: "text" },
      { cause },
    );
    expect(error).toMatchObject({
      message: "half done",
      id: "42",
      properties: { verified: false, __provider: "text" },
      reasons: ["half done"],
      cause,
    });
  });
});
