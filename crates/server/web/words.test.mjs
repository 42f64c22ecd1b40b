// What the page says of records and sessions, run with Node's own test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { recordInWords, sessionFacts, sessionName, sessionState } from "./words.js";

test("records are told in words, the same the terminal interface reads", () => {
  const fixtures = JSON.parse(readFileSync(new URL("./words.fixtures.json", import.meta.url), "utf8"));
  for (const { record, words } of fixtures) assert.equal(recordInWords(record), words, JSON.stringify(record));
});

test("a session's state: waiting first, then closed, working, failed, idle", () => {
  const open = { open: true, turn_running: false };
  assert.equal(sessionState(open, true), "waiting");
  assert.equal(sessionState({ ...open, open: false }, false), "closed");
  assert.equal(sessionState({ ...open, turn_running: true }, false), "working");
  assert.equal(sessionState({ ...open, last_turn: { reason: "failed", why: "x" } }, false), "failed");
  assert.equal(sessionState({ ...open, last_turn: { reason: "finished" } }, false), "idle");
  assert.equal(
    sessionFacts({ ahead: 3, last_landing: { base: "main" } }, "waiting"),
    "waiting for you · 3 ahead · landed on main",
  );
  assert.equal(sessionFacts({}, "idle"), "idle");
});

test("a session is called by its name, its branch, or its short id in its folder", () => {
  const id = "20261203T114450Z-dfaeb3bc";
  assert.equal(sessionName({ session: id, name: "fix-login", branch: "nodwyn/fix-login" }), "fix-login");
  assert.equal(sessionName({ session: id, branch: "nodwyn/dfaeb3bc" }), "nodwyn/dfaeb3bc");
  assert.equal(sessionName({ session: id, branch: null }), "dfaeb3bc in the folder");
});
