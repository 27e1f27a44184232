import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The portal is served by the API process at /portal (see src/portal/index.ts).
export default defineConfig({
  root: import.meta.dirname,
  base: '/portal/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
});
