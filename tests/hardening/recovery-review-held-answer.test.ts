import { domainProvider } from "../../provider/dynamic";
import { configureForUrl, failure } from "../support/providers";
import { envelope, startScriptedServer } from "../support/scripted-server";

/**
 * Review of f139362 (issue 36): "the service's duplicate refusal is the proof a name is taken".
 *
 * The commit drops the list before a create, so a deployment that does not refuse a duplicate name
 * but answers the create with the domain that already holds it (get-or-create, as some forks and
 * proxies do; the answer readable, `dns_records` absent, which `createdDomainSchema` accepts for
 * "a deployment that does not send them") is now taken at its word: `createDomainWithRecords`
 * reads the answer as "this call made it" and, finding no records, *deletes* it
 * ("answeredWithoutRecords"). That domain was made years before the call (its `created_at` says
 * so) by someone else: another stack's domain, and every route on it, is deleted. Before this
 * commit the list sent first found the name held and nothing was sent.
 *
 * What a user sees: another team's mail domain disappears during their `up`. FAILS against
 * f139362 (a `domains/delete` of the other party's domain is sent).
 */
describe("a create answered with a domain that predates the call", () => {
  it("is never deleted as if this call had made it", async () => {
    const name = "shared.example.com";
    const theirs = {
      id: 9,
      uuid: "theirs",
      name,
      spf_status: "OK",
      dkim_status: "OK",
      mx_status: "OK",
      return_path_status: "OK",
      created_at: "2019-03-01T10:00:00Z",
    };
    const server = await startScriptedServer([
      { status: 200, body: envelope(theirs) }, // domains/create: the existing domain, no records
      { status: 200, body: envelope({ id: 9, name }) }, // anything after: e.g. domains/delete
    ]);
    try {
      await configureForUrl(server.url, [domainProvider]);
      await failure(domainProvider.create({ name, adopt: false, __provider: "text" }));
      const paths = server.received.map((r) => r.path.replace("/api/v1/", ""));
      expect(paths).not.toContain("domains/delete");
    } finally {
      await server.close();
    }
  });
});
