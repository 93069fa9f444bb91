"""A minimal DOM for running the HTML pages' scripts in node (the report's and the
calibration page's tests): elements, text, attributes, listeners; `app` is the page root."""

FAKE_DOM = r"""
class Node {
  constructor(tag, text) { this.tagName = tag; this.children = []; this.attrs = {};
    this.listeners = {}; this.style = {}; this._text = text || ""; this.className = ""; }
  get textContent() { return this._text + this.children.map((c) => c.textContent).join(""); }
  set textContent(v) { this._text = String(v); this.children = []; }
  appendChild(c) { this.children.push(c); return c; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; }
  addEventListener(t, f) { (this.listeners[t] = this.listeners[t] || []).push(f); }
  fire(t) { (this.listeners[t] || []).forEach((f) => f({})); }
  all(test, found = []) { if (test(this)) found.push(this); this.children.forEach((c) => c.all(test, found)); return found; }
}
const data = new Node("script", DATA); data.attrs["data-encoding"] = "json";
const app = new Node("main");
globalThis.window = globalThis;
globalThis.location = { protocol: "file:" };
globalThis.document = {
  createElement: (tag) => new Node(tag), createTextNode: (t) => new Node("#text", t),
  getElementById: (id) => (id === "checkspec-data" ? data : id === "app" ? app : null),
  body: { classList: { add() {} }, setAttribute() {} },
};
"""
