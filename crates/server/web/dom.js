// Making the page's elements: text always set as text (with its hidden characters made visible),
// never parsed as HTML.

import { visible } from "/text.js";

/** A `tag` element holding `text` as literal text, with `className`. */
export function element(tag, text, className) {
  const made = document.createElement(tag);
  if (text !== undefined) made.textContent = visible(text);
  if (className) made.className = className;
  return made;
}

/** A button named `name` that calls `onClick`. */
export function button(name, onClick, className) {
  const made = element("button", name, className);
  made.type = "button";
  made.addEventListener("click", onClick);
  return made;
}
