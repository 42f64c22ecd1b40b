// How the console shows text it did not write (file names, model text, commands, branch names):
// as text, with the characters that make what is read differ from what is there (bidi controls,
// zero-width and other invisible ones, controls but line feeds and tabs) shown as `\u{..}`, as
// nodwyn shows them on a terminal.

// Also the combining grapheme joiner, the blank Hangul fillers, the variation selectors but the
// emoji ones (fe0e, fe0f), and the tag characters, which spell ASCII invisibly.
const HIDDEN =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0d\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;

/** `text` with every hidden or direction-changing character shown as `\u{..}`. */
export function visible(text) {
  return String(text).replace(HIDDEN, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
}
