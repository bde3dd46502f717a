import * as pulumiLog from "@pulumi/pulumi/log";
import { log } from "../../provider/dynamic/engine-log";

/** The providers' log: Pulumi's own, loaded at the first line, each line passed on as written. */
jest.mock("@pulumi/pulumi/log", () => ({ debug: jest.fn(), info: jest.fn(), warn: jest.fn() }));

it("passes each line, with its resource, to Pulumi's log", () => {
  log.info("mail.example.com: waiting for DKIM");
  log.warn("SPF record example.com: merged", undefined, 7, true);
  log.debug("left out");
  expect(jest.mocked(pulumiLog.info)).toHaveBeenCalledWith("mail.example.com: waiting for DKIM");
  expect(jest.mocked(pulumiLog.warn)).toHaveBeenCalledWith(
    "SPF record example.com: merged",
    undefined,
    7,
    true,
  );
  expect(jest.mocked(pulumiLog.debug)).toHaveBeenCalledWith("left out");
});
