// The ES module face of the package: the same API as `require("ctxfuzz")` (lib/fuzz.cjs).
import api from "./lib/fuzz.cjs";

export const { fuzz, FuzzFailure } = api;
