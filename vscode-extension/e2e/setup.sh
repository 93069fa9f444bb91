#!/usr/bin/env bash
# What `make e2e` needs, installed when missing (idempotent): Debian's chromium, neovim and
# emacs-nox with elpa-eglot and elpa-yaml-mode,
# and a real VS Code in a browser (code-server, from the npm registry, by the shared
# tools' code-server-setup.sh) in $CODE_SERVER_DIR (default /tmp/cs).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cs="${CODE_SERVER_DIR:-/tmp/cs}"
missing=()
command -v "${CHROMIUM:-/usr/bin/chromium}" >/dev/null 2>&1 || missing+=(chromium)
command -v "${NVIM:-nvim}" >/dev/null 2>&1 || missing+=(neovim)
command -v "${EMACS:-emacs}" >/dev/null 2>&1 || missing+=(emacs-nox)
[ -d /usr/share/emacs/site-lisp/elpa-src ] && ls /usr/share/emacs/site-lisp/elpa-src | grep -q '^eglot-' \
  || missing+=(elpa-eglot)
[ -d /usr/share/emacs/site-lisp/elpa-src ] && ls /usr/share/emacs/site-lisp/elpa-src | grep -q '^yaml-mode-' \
  || missing+=(elpa-yaml-mode)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "e2e setup: apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -f "$cs/node_modules/code-server/out/node/entry.js" ]; then
  setup="${CODE_SERVER_SETUP:-$repo/../shared/tools/code-server-setup.sh}"
  [ -f "$setup" ] || { echo "e2e setup: $setup not found (set CODE_SERVER_SETUP)"; exit 2; }
  echo "e2e setup: code-server into $cs"
  bash "$setup" "$cs" >/tmp/code-server-setup.log 2>&1 || { tail -30 /tmp/code-server-setup.log; exit 1; }
fi
