// Playwright's configuration for signup.spec.mjs, as a product's suite
// has one; what differs is only where things are, which the Go test
// (compat_playwright_test.go) says in the environment:
//   SIGNUP_URL                the site under test (use.baseURL);
//   CHROMIUM_PATH             the browser, Debian's chromium: Playwright
//                             downloads none (launchOptions.executablePath);
//   PLAYWRIGHT_OUTPUT_DIR     where Playwright writes (test-results);
//   PLAYWRIGHT_JSON_OUTPUT_FILE where the json reporter writes its report.
// The spec itself reads MAILSLURP_BASE_PATH and MAILSLURP_API_KEY.
import { defineConfig } from '@playwright/test';

for (const name of ['SIGNUP_URL', 'CHROMIUM_PATH', 'PLAYWRIGHT_OUTPUT_DIR', 'PLAYWRIGHT_JSON_OUTPUT_FILE']) {
  if (!process.env[name]) throw new Error(`${name} is not set`);
}

export default defineConfig({
  testDir: '.',
  testMatch: 'signup.spec.mjs',
  outputDir: process.env.PLAYWRIGHT_OUTPUT_DIR,
  forbidOnly: true,
  retries: 0,
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['line'], ['json', { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_FILE }]],
  use: {
    baseURL: process.env.SIGNUP_URL,
    browserName: 'chromium',
    headless: true,
    trace: 'off',
    screenshot: 'off',
    video: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH,
      // The machine may have no network: Chromium's own background
      // connections would only fail.
      args: ['--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
});
