// The review's logic, run with Node's own test runner (no dependencies).
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  Drafts,
  Latest,
  header,
  numbered,
  ordered,
  outdated,
  reviewParams,
  sideBySide,
} from "./review.js";

const hunk = {
  header: "@@ -3,4 +3,5 @@ fn main() {",
  lines: [" keep", "-old one", "-old two", "+new one", "+new two", "+new three", " tail"],
};

test("a hunk's header gives each side's first line, a missing count meaning one", () => {
  assert.deepEqual(header("@@ -3,4 +3,5 @@ fn"), { old: 3, oldCount: 4, new: 3, newCount: 5 });
  assert.deepEqual(header("@@ -0,0 +1 @@"), { old: 0, oldCount: 0, new: 1, newCount: 1 });
  assert.equal(header("not a header"), null);
});

test("each line is numbered on the sides it is on", () => {
  const rows = numbered(hunk);
  assert.deepEqual(
    rows.map((r) => [r.kind, r.old, r.new, r.text]),
    [
      ["context", 3, 3, "keep"],
      ["removed", 4, null, "old one"],
      ["removed", 5, null, "old two"],
      ["added", null, 4, "new one"],
      ["added", null, 5, "new two"],
      ["added", null, 6, "new three"],
      ["context", 6, 7, "tail"],
    ],
  );
  const noNewline = numbered({ header: "@@ -1 +1 @@", lines: ["-a", "+b", "\\ No newline at end of file"] });
  assert.equal(noNewline[2].kind, "note");
  assert.equal(noNewline[2].new, null);
});

test("side by side pairs a run of removed lines with the added run after it", () => {
  const pairs = sideBySide(numbered(hunk)).map(({ left, right }) => [
    left && `${left.old}:${left.text}`,
    right && `${right.new}:${right.text}`,
  ]);
  assert.deepEqual(pairs, [
    ["3:keep", "3:keep"],
    ["4:old one", "4:new one"],
    ["5:old two", "5:new two"],
    [null, "6:new three"],
    ["6:tail", "7:tail"],
  ]);
  // Added lines before removed ones are not paired with the removed run after them.
  const mixed = sideBySide(numbered({ header: "@@ -1,2 +1,2 @@", lines: ["+a", "-b", "-c", "+d"] }));
  assert.deepEqual(
    mixed.map(({ left, right }) => [left && left.text, right && right.text]),
    [
      [null, "a"],
      ["b", "d"],
      ["c", null],
    ],
  );
});

test("comments are ordered by file, the file's own first, then by line, then as written", () => {
  const comments = [
    { path: "src/b.rs", line: 9, text: "b9", made: 1 },
    { path: "src/a.rs", line: 12, text: "a12", made: 2 },
    { path: "src/a.rs", line: 0, text: "a file", made: 3 },
    { path: "src/a.rs", line: 3, text: "a3 second", made: 5 },
    { path: "src/a.rs", line: 3, text: "a3 first", made: 4 },
  ];
  assert.deepEqual(
    ordered(comments).map((c) => c.text),
    ["a file", "a3 first", "a3 second", "a12", "b9"],
  );
  const params = reviewParams("s1", comments, "  ");
  assert.equal(params.note, undefined);
  assert.deepEqual(params.file_comments, [{ path: "src/a.rs", text: "a file" }]);
  assert.deepEqual(
    params.comments.map((c) => `${c.path}:${c.line}`),
    ["src/a.rs:3", "src/a.rs:3", "src/a.rs:12", "src/b.rs:9"],
  );
  const anchored = reviewParams("s1", [{ path: "a", line: 2, text: "t", anchor: "let x = 1;", made: 1 }], "");
  assert.deepEqual(anchored.comments, [{ path: "a", line: 2, text: "t", line_text: "let x = 1;" }]);
  assert.equal(reviewParams("s1", [], "overall").note, "overall");
});

test("a comment whose line shows other text now is outdated, not moved", () => {
  const files = [{ path: "src/a.rs", hunks: [hunk] }];
  const comment = (line, anchor) => ({ path: "src/a.rs", line, anchor, text: "x" });
  assert.equal(outdated(comment(4, "new one"), files, true), false);
  assert.equal(outdated(comment(4, "something else"), files, true), true);
  // Off the changes: outdated when the diff is every change, unknown (kept) otherwise.
  assert.equal(outdated(comment(40, "far"), files, true), true);
  assert.equal(outdated(comment(40, "far"), files, false), false);
  assert.equal(outdated({ path: "gone.rs", line: 0, text: "x" }, files, true), true);
  assert.equal(outdated({ path: "src/a.rs", line: 0, text: "x" }, files, true), false);
});

test("only the reply to the newest request is used", () => {
  const latest = new Latest();
  const first = latest.ticket();
  const second = latest.ticket();
  assert.equal(latest.current(first), false);
  assert.equal(latest.current(second), true);
});

test("drafts are kept per session and survive a broken store", () => {
  const kept = new Map();
  const storage = {
    getItem: (k) => (kept.has(k) ? kept.get(k) : null),
    setItem: (k, v) => kept.set(k, v),
    removeItem: (k) => kept.delete(k),
  };
  const drafts = new Drafts(storage);
  assert.deepEqual(drafts.load("s1"), { comments: [], note: "", draft: null });
  drafts.save("s1", { comments: [{ path: "a", line: 1, text: "t" }], note: "n", draft: { path: "a", line: 2, text: "half" } });
  assert.equal(drafts.load("s1").draft.text, "half");
  assert.deepEqual(drafts.load("s2").comments, []);
  kept.set(drafts.key("s3"), "{not json");
  assert.deepEqual(drafts.load("s3").comments, []);
  drafts.clear("s1");
  assert.equal(drafts.load("s1").note, "");
});
