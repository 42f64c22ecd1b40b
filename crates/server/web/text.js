// How the console shows text it did not write (file names, model text, commands, branch names):
// as text, with the characters that make what is read differ from what is there (bidi controls,
// zero-width and other invisible ones, controls but line feeds and tabs) shown as `\u{..}`, as
// nodwyn shows them on a terminal.

const HIDDEN =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/gu;

/** `text` with every hidden or direction-changing character shown as `\u{..}`. */
export function visible(text) {
  return String(text).replace(HIDDEN, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
}
