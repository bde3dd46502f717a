import { saysZoneUnreachable } from "../../provider/cloudflare/failure-advice";

/** Recognising Cloudflare's word that a zone id is not one the token reaches, in other code's errors. */
describe("saysZoneUnreachable", () => {
  it.each([
    "Cloudflare GET dns_records 404: 1001 Invalid zone identifier",
    'GET "https://api.cloudflare.com/client/v4/zones/0123/dns_records": 404 Not Found {"errors":[{"code":7003,"message":"Could not route to /zones/0123/dns_records, perhaps your object identifier is invalid?"}]}',
  ])("recognises %j", (text) => expect(saysZoneUnreachable(text)).toBe(true));

  it.each([
    "Cloudflare GET dns_records 403: 10000 Authentication error",
    "Cloudflare GET dns_records 404: 81044 Record does not exist.",
    "no answer (ECONNREFUSED)",
  ])("leaves %j alone", (text) => expect(saysZoneUnreachable(text)).toBe(false));
});
