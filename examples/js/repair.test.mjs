// The test a user writes (docs/javascript.md): ctxfuzz fuzzes the repairer inside node:test.
// `node --test`: the careful repairer passes; the lossy one fails, the finding its message.
import { test } from "node:test";
import { fuzz } from "ctxfuzz";
import { repair as careful } from "./careful.mjs";
import { repair as lossy } from "./lossy.mjs";

const options = { contract: "repair", format: "openai", marker: "[synthetic]", seconds: 3 };

test("the careful repairer keeps the repair contract", async () => {
  await fuzz(careful, options);
});

test("the lossy repairer keeps the repair contract", async () => {
  await fuzz(lossy, options);
});
