import { defineNitroConfig } from "nitro/config";

export default defineNitroConfig({
  // `nitro build` writes .output/server/index.mjs; `node .output/server/index.mjs` serves it.
  preset: "node-server",
  compatibilityDate: "2026-11-01",
});
