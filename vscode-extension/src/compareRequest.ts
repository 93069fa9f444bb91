// `checkspec.compareWithPrevious`'s answer -> what the compare webview shows. Pure.
//
// The server answers {html, title, base, head} (the self-contained compare page of the
// file's last two recorded runs, engine/html) or {error}. The page is the server's own
// rendering: its data is embedded as escaped JSON and its script writes every text through
// textContent; its CSP allows only its inline style and script and no network.
import { escapeHtml } from "./transcript";

export const COMPARE_WITH_PREVIOUS = "checkspec.compareWithPrevious"; // [uri]

export type CompareAnswer = { html: string; title: string } | { error: string };

export function parseCompareAnswer(value: unknown): CompareAnswer {
  const data = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  if (typeof data["html"] === "string" && data["html"].startsWith("<!doctype html>")) {
    const base = typeof data["base"] === "string" ? data["base"] : "previous";
    const head = typeof data["head"] === "string" ? data["head"] : "last";
    return { html: data["html"], title: typeof data["title"] === "string" ? data["title"] : `Compare ${base} → ${head}` };
  }
  return { error: typeof data["error"] === "string" ? data["error"] : "the server gave no comparison" };
}

/** The page for an answer that is an error: no script, one inline style. */
export function errorHtml(message: string): string {
  return (
    '<!doctype html><html><head><meta charset="utf-8">' +
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">" +
    "<style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);padding:16px}</style>" +
    `</head><body><p>checkspec: ${escapeHtml(message)}</p></body></html>`
  );
}
