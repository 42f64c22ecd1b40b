// Drives nodwyn's web console in a real Chromium (Debian's, through playwright-core). Prints
// one JSON object of what it saw.
//
// Usage: node drive.mjs SCENARIO URL SHORT SHOTS
//   answer:  follow session SHORT, answer its waiting question with Allow, wait for the agent's
//            answer, reload, and screenshot the views (desktop and phone, light and dark) into
//            SHOTS.
//   compose: follow session SHORT, send a message from the page, answer the question it leads
//            to, then land the work with a commit message typed in the page.
//   review:  follow session SHORT, send a message, try to send a review while it is answered,
//            answer it, then review: scopes, both layouts, a line and a file comment, a draft
//            kept across closing the review, the guard's verdicts, Send review, and a landing
//            refused.
//   start:   start sessions from the page: in a worktree of the first folder of SHORT (folders
//            joined by "|"), then in the second folder itself with "In a worktree" unchecked,
//            which the tab keeps for that folder.
import { chromium } from "playwright-core";

const [scenario, url, short, shots] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.NODWYN_TEST_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
const seen = { errors: [] };
// The page a scenario last opened: on a failure, what it said is part of the report.
let last = null;

async function open(follow = true) {
  // Notifications allowed, as a person who turned them on; each one the page shows is also
  // noted, since a headless browser shows none.
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, permissions: ["notifications"] });
  await page.addInitScript(() => {
    const Shown = window.Notification;
    window.notified = [];
    window.Notification = new Proxy(Shown, {
      construct(target, [title, options]) {
        window.notified.push(`${title}: ${options && options.body}`);
        return Reflect.construct(target, [title, options]);
      },
    });
  });
  page.on("pageerror", (error) => seen.errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") seen.errors.push(message.text());
  });
  last = page;
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
  seen.notified = await page.evaluate(() => window.notified);
  // Answered from a second tab: the question leaves the first tab's queue too.
  const second = await open(false);
  await allow(second);
  await page.getByText("Wrote the note").waitFor({ timeout: 20000 });
  await second.close();
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
  // What belongs to starting a session is not shown while one is followed.
  seen.folderShownWhileFollowing = await page.getByRole("combobox", { name: "Folder" }).isVisible();
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
  // A reload mid-turn, while the question waits, loses nothing: the conversation is told again
  // and the question is still there to answer.
  await page.getByRole("button", { name: "Allow" }).waitFor({ timeout: 20000 });
  seen.messageAfterSend = await message.inputValue();
  await page.reload();
  await page.getByText("write a note").waitFor({ timeout: 10000 });
  seen.questionsAfterReload = await page.locator(".question").count();
  await allow(page);
  await page.getByText("Wrote the note").waitFor({ timeout: 20000 });
  await page.getByText("ended: finished").waitFor({ timeout: 20000 });
  seen.turnsShown = await page.getByText("write a note").count();
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

async function review() {
  const page = await open();
  const message = page.getByRole("textbox", { name: "Message" });
  await message.fill("tidy the notes");
  await page.getByRole("button", { name: "Send" }).click();
  await page.getByRole("button", { name: "Allow" }).waitFor({ timeout: 20000 });
  // While the session answers, its review cannot be sent, and the page says it waits.
  await page.getByRole("button", { name: "Review" }).click();
  const send = page.getByRole("button", { name: "Send review" });
  await send.waitFor();
  seen.sendWhileAnswering = (await send.isDisabled()) ? "disabled" : "enabled";
  seen.waits = await page.locator("#review-waits").innerText();
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForFunction(() => !document.getElementById("send-review").disabled, null, { timeout: 20000 });
  await page.getByRole("button", { name: /^notes\.txt/ }).waitFor({ timeout: 20000 });
  const files = async () => (await page.locator("#files").innerText()).replace(/\s+/g, " ").trim();
  seen.sinceBase = await files();
  seen.sidebar = await page.locator("#sessions").innerText();
  seen.verdicts = await page.locator("#verdicts").innerText();
  // A comment on a line of notes.txt, one on app.txt as a whole.
  await page.getByRole("button", { name: /^notes\.txt/ }).click();
  // This one with the keyboard alone: the line's button, Enter, the text, Ctrl-Enter.
  await page.getByRole("button", { name: "Comment on line 1 of notes.txt" }).focus();
  await page.keyboard.press("Enter");
  await page.getByRole("textbox", { name: "Comment" }).waitFor();
  await page.waitForFunction(() => document.activeElement && document.activeElement.getAttribute("aria-label") === "Comment");
  await page.keyboard.type("Say why, not <b>what</b>.");
  await page.keyboard.press("Control+Enter");
  await page.getByRole("textbox", { name: "Comment" }).waitFor({ state: "detached" });
  await page.getByRole("button", { name: /^app\.txt/ }).click();
  await page.getByRole("button", { name: "Comment on app.txt" }).click();
  await page.getByRole("textbox", { name: "Comment" }).fill("Keep the old wording here.");
  await page.getByRole("button", { name: "Save comment" }).click();
  // A third comment, begun and left unfinished, survives closing and reopening the review.
  await page.getByRole("button", { name: "Comment on line 2 of app.txt" }).click();
  await page.getByRole("textbox", { name: "Comment" }).fill("half-written thought");
  await page.screenshot({ path: `${shots}/desktop-review-unified.png`, fullPage: true });
  await page.getByRole("button", { name: "Close review" }).click();
  await page.getByRole("button", { name: "Review" }).click();
  await page.getByRole("button", { name: /^app\.txt/ }).click();
  seen.draftAfterReopening = await page.getByRole("textbox", { name: "Comment" }).inputValue();
  seen.commentCount = await page.locator("#comment-count").innerText();
  await page.getByRole("button", { name: "Cancel" }).click();
  await page.getByRole("button", { name: "Side by side" }).click();
  seen.sideBySideRows = await page.locator("table.diff.split tr").count();
  seen.sideBySide = await page.locator("table.diff.split").innerText();
  await page.screenshot({ path: `${shots}/desktop-review-split.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${shots}/phone-review.png`, fullPage: true });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: `${shots}/phone-review-dark.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
  await page.getByRole("button", { name: "Unified" }).click();
  for (const [scope, key] of [["Uncommitted", "uncommitted"], ["Last turn", "lastTurn"]]) {
    await page.getByRole("button", { name: scope }).click();
    await page.waitForFunction(() => !/Reading/.test(document.getElementById("review-said").textContent));
    seen[key] = await files();
  }
  await page.getByRole("button", { name: "Since base" }).click();
  await page.getByRole("textbox", { name: "Note" }).fill("Nearly there.");
  await send.click();
  await page.getByText("Thanks for the review").waitFor({ timeout: 20000 });
  await page.getByText("ended: finished").last().waitFor({ timeout: 20000 });
  seen.reviewOpenAfterSending = await page.locator("#review").isVisible();
  // The session's base moved on with a conflicting change: the landing says so in its words.
  await message.fill("Tidy the notes");
  await page.getByRole("button", { name: "Land" }).click();
  await page.locator("#said").filter({ hasText: /\S/ }).waitFor({ timeout: 30000 });
  seen.landing = await page.locator("#said").innerText();
  // Removing the worktree now would lose work: refused, naming why, and nothing removed.
  await page.getByRole("button", { name: "Remove" }).click();
  await page.locator("#said").filter({ hasText: /^(?!merge_conflict)\S/ }).waitFor({ timeout: 30000 });
  seen.removal = await page.locator("#said").innerText();
}

async function start() {
  const [inWorktree, inFolder] = short.split("|");
  const page = await open(false);
  const begin = async (folder, worktree) => {
    await page.getByRole("button", { name: "New session" }).click();
    await page.getByRole("combobox", { name: "Folder" }).fill(folder);
    const box = page.getByRole("checkbox", { name: "In a worktree" });
    seen.checkedAtFirst = seen.checkedAtFirst || [];
    seen.checkedAtFirst.push(await box.isChecked());
    await box.setChecked(worktree);
    await page.getByRole("textbox", { name: "Message" }).fill("write a note");
    await page.getByRole("button", { name: "Send" }).click();
    await allow(page);
    await page.getByText("Wrote the note").waitFor({ timeout: 20000 });
    await page.getByText("ended: finished").waitFor({ timeout: 20000 });
    return page.locator("#title").innerText();
  };
  seen.titles = [await begin(inWorktree, true), await begin(inFolder, false)];
  // The tab keeps the choice for that folder.
  await page.getByRole("button", { name: "New session" }).click();
  await page.getByRole("combobox", { name: "Folder" }).fill(inFolder);
  seen.keptForFolder = await page.getByRole("checkbox", { name: "In a worktree" }).isChecked();
  seen.sessions = await page.locator(".session").count();
  await page.screenshot({ path: `${shots}/desktop-new-session.png`, fullPage: true });
}

const scenarios = { answer, compose, review, start };
try {
  await scenarios[scenario]();
} catch (error) {
  seen.failure = String(error);
  if (last) {
    seen.pageSaid = await last
      .evaluate(() => ["status", "said", "review-said", "review-waits", "conversation"].map((id) => `${id}: ${document.getElementById(id).innerText}`))
      .catch((e) => String(e));
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(seen));
