// `npm run demo`: demo/run.ts through tsx's require hook with tsx's disk cache off, so that the
// demo leaves nothing behind in the temporary folder (the tsx command keeps a cache and an IPC
// folder there).
process.env.TSX_DISABLE_CACHE = "1";
require("tsx/cjs");
require("./run.ts");
