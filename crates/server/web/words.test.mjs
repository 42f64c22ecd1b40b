// What the page says of records and sessions, run with Node's own test runner.
import { test } from "node:test";
import assert from "node:assert/strict";

import { recordInWords, sessionFacts, sessionName, sessionState } from "./words.js";

test("worktree records are told in words", () => {
  assert.equal(
    recordInWords({ type: "worktree.create", path: "/r/.nodwyn/worktrees/1a2b", branch: "nodwyn/1a2b", uncommitted: 2 }),
    "Made the worktree /r/.nodwyn/worktrees/1a2b on nodwyn/1a2b; 2 uncommitted changes of the checkout stayed behind",
  );
  assert.equal(
    recordInWords({ type: "worktree.create", path: "/w", branch: "b", uncommitted: 0 }),
    "Made the worktree /w on b",
  );
  assert.equal(recordInWords({ type: "worktree.restore", path: "/w", branch: "b" }), "Made the worktree again at /w on b");
  assert.equal(
    recordInWords({ type: "worktree.remove", path: "/w", branch: "b", branch_deleted: false, branch_kept: "2 commits not on main", discarded: ["x.txt"] }),
    "Removed the worktree /w; the branch b stays: 2 commits not on main; discarded x.txt",
  );
  assert.equal(recordInWords({ type: "git.land", base: "main", landed: "0123456789abcdef" }), "Landed on main (01234567)");
  assert.equal(recordInWords({ type: "guard.decision" }), null);
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
