// The ready policy pack: every policy of pulumi-email-delivery with its own defaults. The engine
// runs this folder (`pulumi preview --policy-pack <folder>`); levels and settings per stack come
// from `--policy-pack-config <file>`. To change the defaults in code, copy this folder and pass
// options to emailDeliveryPolicies (see the package's docs/policy.md).
const { PolicyPack } = require("@pulumi/policy");
const { emailDeliveryPolicies } = require("pulumi-email-delivery/policy");

new PolicyPack("email-delivery-posture", { policies: emailDeliveryPolicies() });
