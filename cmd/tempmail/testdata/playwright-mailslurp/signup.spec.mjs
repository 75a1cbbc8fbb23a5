// A sign-up test as a product's Playwright suite writes it with MailSlurp:
// a new inbox from the SDK, its address typed into the sign-up form, the
// verification mail waited for with the SDK's own wait, the code read out
// of it and typed in. Here the SDK talks to tempmail's MailSlurp family
// (MAILSLURP_BASE_PATH, a tenant's key in MAILSLURP_API_KEY), and the site
// is the Go test's (compat_playwright_test.go), which sends the mail over
// SMTP into tempmail.
import { test, expect } from '@playwright/test';
import { MailSlurp } from 'mailslurp-client';

const mailslurp = new MailSlurp({
  apiKey: process.env.MAILSLURP_API_KEY,
  basePath: process.env.MAILSLURP_BASE_PATH,
});

test('signs up with a new inbox and the code mailed to it', async ({ page }) => {
  const inbox = await mailslurp.createInbox();
  expect(inbox.emailAddress).toMatch(/@/);

  await page.goto('/');
  await page.getByLabel('Email').fill(inbox.emailAddress);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();

  const email = await mailslurp.waitForLatestEmail(inbox.id, 30_000, true);
  expect(email.subject).toBe('Your verification code');
  // Both ways suites read a code: the SDK's content match, a regex on the body.
  const { matches } = await mailslurp.emailController.getEmailContentMatch({
    emailId: email.id,
    contentMatchOptions: { pattern: 'code is ([0-9]{6})' },
  });
  const code = /code is ([0-9]{6})/.exec(email.body)?.[1];
  expect(matches[1]).toBe(code);

  await page.getByLabel('Code').fill(code);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Verified');

  await mailslurp.deleteInbox(inbox.id);
});
