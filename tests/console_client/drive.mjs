// Drives nodwyn's web console in a real Chromium (Debian's, through playwright-core). Prints
// one JSON object of what it saw.
//
// Usage: node drive.mjs SCENARIO URL SHORT SHOTS
//   answer:  follow session SHORT, answer its waiting question with Allow, wait for the agent's
//            answer, reload, and screenshot the views (desktop and phone, light and dark) into
//            SHOTS.
//   compose: follow session SHORT, send a message from the page, answer the question it leads
//            to, then land the work with a commit message typed in the page.
import { chromium } from "playwright-core";

const [scenario, url, short, shots] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.NODWYN_TEST_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
const seen = { errors: [] };

async function open(follow = true) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (error) => seen.errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") seen.errors.push(message.text());
  });
  await page.goto(url);
  seen.addressAfterLoad = page.url();
  if (follow) await follow_session(page);
  return page;
}

async function follow_session(page) {
  await page.getByRole("button", { name: new RegExp(short) }).click();
}

async function allow(page) {
  const button = page.getByRole("button", { name: "Allow" });
  await button.waitFor({ timeout: 20000 });
  seen.question = await page.locator(".question").first().innerText();
  await button.click();
}

async function answer() {
  // The queue holds every session's questions: this one shows before its session is followed.
  const page = await open(false);
  await page.getByRole("button", { name: "Allow" }).waitFor({ timeout: 20000 });
  seen.queuedBeforeFollowing = await page.locator(".question").count();
  await page.screenshot({ path: `${shots}/desktop-question.png`, fullPage: true });
  await follow_session(page);
  seen.questionsWhileFollowing = await page.locator(".question").count();
  await allow(page);
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
  await page.locator(".session").first().waitFor({ timeout: 10000 });
  seen.sessionsAfterReload = await page.locator(".session").count();
  // The session followed before is followed again, its conversation told again.
  await page.getByText("Wrote the note").waitFor({ timeout: 10000 });
  seen.followedAfterReload = await page.locator('.session[aria-current="true"]').count();
  for (const [name, size, scheme] of [
    ["desktop-dark", { width: 1280, height: 800 }, "dark"],
    ["phone-light", { width: 390, height: 844 }, "light"],
    ["phone-dark", { width: 390, height: 844 }, "dark"],
  ]) {
    await page.setViewportSize(size);
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  }
}

async function compose() {
  const page = await open();
  const message = page.getByRole("textbox", { name: "Message" });
  await message.fill("write a note");
  await page.getByRole("button", { name: "Send" }).click();
  await allow(page);
  await page.getByText("Wrote the note").waitFor({ timeout: 20000 });
  await page.getByText("ended: finished").waitFor({ timeout: 20000 });
  seen.messageAfterSend = await message.inputValue();
  // Landing without a message is refused, in the landing's own words.
  await page.getByRole("button", { name: "Land" }).click();
  await page.locator("#said").filter({ hasText: /\S/ }).waitFor({ timeout: 20000 });
  seen.refused = await page.locator("#said").innerText();
  await message.fill("Add the note");
  await page.getByRole("button", { name: "Land" }).click();
  await page.locator("#said").filter({ hasText: /landed/ }).waitFor({ timeout: 30000 });
  seen.landed = await page.locator("#said").innerText();
  await page.screenshot({ path: `${shots}/desktop-landed.png`, fullPage: true });
}

try {
  await (scenario === "compose" ? compose() : answer());
} catch (error) {
  seen.failure = String(error);
} finally {
  await browser.close();
}
console.log(JSON.stringify(seen));
