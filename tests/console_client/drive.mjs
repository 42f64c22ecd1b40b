// Drives nodwyn's web console in a real Chromium (Debian's, through playwright-core): opens the
// printed address, follows session SHORT, answers its question with Allow, waits for the
// agent's answer, and screenshots the views (desktop and phone, light and dark) into SHOTS.
// Prints one JSON object of what it saw.
//
// Usage: node drive.mjs URL SHORT SHOTS
import { chromium } from "playwright-core";

const [url, short, shots] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.NODWYN_TEST_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
const seen = { errors: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (error) => seen.errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") seen.errors.push(message.text());
  });
  await page.goto(url);
  seen.addressAfterLoad = page.url();
  await page.getByRole("button", { name: new RegExp(short) }).click();
  const allow = page.getByRole("button", { name: "Allow" });
  await allow.waitFor({ timeout: 20000 });
  seen.question = await page.locator(".question").first().innerText();
  await page.screenshot({ path: `${shots}/desktop-question.png`, fullPage: true });
  await allow.click();
  await page.getByText("Wrote the note").waitFor({ timeout: 20000 });
  await page.waitForTimeout(300);
  seen.questionsLeft = await page.locator(".question").count();
  seen.conversation = await page.locator("#conversation").innerText();
  // Text that looks like HTML is text: no element was made of it.
  seen.elementsFromText = await page.locator("#conversation b, #conversation script").count();
  await page.screenshot({ path: `${shots}/desktop-light.png`, fullPage: true });
  // The token lives in the tab, not in a cookie: a reload connects again without the address.
  seen.cookies = (await page.context().cookies()).length;
  await page.reload();
  await page.getByText("Connected").waitFor({ timeout: 10000 });
  seen.sessionsAfterReload = await page.locator(".session").count();
  for (const [name, size, scheme] of [
    ["desktop-dark", { width: 1280, height: 800 }, "dark"],
    ["phone-light", { width: 390, height: 844 }, "light"],
    ["phone-dark", { width: 390, height: 844 }, "dark"],
  ]) {
    await page.setViewportSize(size);
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  }
} catch (error) {
  seen.failure = String(error);
} finally {
  await browser.close();
}
console.log(JSON.stringify(seen));
