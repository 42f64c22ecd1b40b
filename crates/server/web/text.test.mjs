// The console's text rules, run with Node's own test runner (no dependencies).
import { test } from "node:test";
import assert from "node:assert/strict";

import { visible } from "./text.js";

test("bidi controls and invisible characters are shown, not obeyed", () => {
  assert.equal(visible("rm -rf ~/\u202eabc"), "rm -rf ~/\\u{202e}abc");
  assert.equal(visible("a\u200bb\u2066c\ufeff"), "a\\u{200b}b\\u{2066}c\\u{feff}");
  assert.equal(visible("\u001b[2Jcleared"), "\\u{1b}[2Jcleared");
  assert.equal(visible("line\rover"), "line\\u{d}over");
  // Text hidden in tag characters, variation selectors and fillers; emoji keep theirs.
  assert.equal(
    visible("main.rs\u{e0020}\u{e0065}\u{e0101}\u3164\u034f"),
    "main.rs\\u{e0020}\\u{e0065}\\u{e0101}\\u{3164}\\u{34f}",
  );
  assert.equal(visible("\u2764\ufe0f"), "\u2764\ufe0f");
});

test("line feeds, tabs and ordinary text stay as they are", () => {
  assert.equal(visible("a\n\tb <b>c</b> é 日本"), "a\n\tb <b>c</b> é 日本");
  assert.equal(visible(42), "42");
});
