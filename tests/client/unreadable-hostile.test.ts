import { createClient, EmailApiError } from "../../provider/client";
import { Script, startScriptedServer } from "../support/scripted-server";

const KEY = "ScriptedKey0000000000001";

/** A 2xx that is not the service's answer, on a read: the message must point at the base URL. */
describe("a read answered 2xx by something that is not the service", () => {
  it.each<[string, Script]>([
    ["an empty 200 (a catch-all or health route)", { status: 200, body: "" }],
    ["an empty 204", { status: 204, body: "" }],
  ])("%s says to check the base URL", async (_what, script) => {
    const server = await startScriptedServer([script]);
    try {
      const error = await createClient({ baseUrl: server.url, apiKey: KEY, retry: { maxAttempts: 1 } })
        .listDomains()
        .then(
          () => undefined,
          (e: EmailApiError) => e,
        );
      expect(error?.message).toContain("base URL");
    } finally {
      await server.close();
    }
  });
});
