// Pulumi's form of an async CommonJS program: the module exports a function, which Pulumi calls;
// what it returns (awaited) is the stack's outputs.
const { Route } = require("pulumi-email-delivery");

module.exports = async () => {
  new Route("support", { name: "support", domainId: 1, endpointId: 1, mode: "Hold" });
  return { address: "support" };
};
