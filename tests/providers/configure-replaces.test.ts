import { forgetConfig, rememberConfig } from "../../provider/dynamic/configured";
import { dnsNameserversSetting, dnsResolverSetting } from "../../provider/dynamic/dns-settings";
import { configureRequest } from "../support/providers";

/**
 * The providers' stack config is process-wide, and `configure()` once only ever added to it.
 * Under the engine a provider process serves one stack, but the test kit runs many stacks in one
 * process (one realm): a later run that leaves `emailDelivery:dnsNameservers` out (the kit's
 * documented `undefined`) keeps asking the nameservers of an earlier run's emulator, whose ports
 * another server on 127.0.0.1 may hold by then.
 */
describe("a later configure() without the DNS settings", () => {
  beforeEach(() => forgetConfig());

  it("forgets the nameservers and resolver an earlier configure() gave", async () => {
    await rememberConfig(
      configureRequest({
        "emailDelivery:dnsNameservers": "127.0.0.1:17753,127.0.0.1:17754",
        "emailDelivery:dnsResolver": "127.0.0.1:17753",
      }),
    );
    await rememberConfig(configureRequest({ "emailDelivery:baseUrl": "http://127.0.0.1:9" }));
    expect({ nameservers: dnsNameserversSetting(), resolver: dnsResolverSetting() }).toEqual({
      nameservers: undefined,
      resolver: undefined,
    });
  });
});
