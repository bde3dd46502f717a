// The root project's program: the basic example (examples/basic/index.ts), with its outputs.
// A file of its own, so Pulumi runs it with this folder's tsconfig and never mistakes the
// package's entry point (package.json "exports") for the program.
export * from "./examples/basic";
