// The web client's build: static files in dist/, served by the gateway's HTTP port.
import { defineConfig } from "vite";

export default defineConfig({
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false },
});
