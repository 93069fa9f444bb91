;;; emacs.el --- end-to-end test of checkspec in Emacs with eglot, in batch mode  -*- lexical-binding: t -*-

;; Run by e2e/emacs.mjs: `emacs --batch -l emacs.el`. Loads the README's Emacs snippet
;; (CHECKSPEC_E2E_SNIPPET, cut from the README by emacs.mjs), opens a scenario with a typo
;; in a copy of examples/ (CHECKSPEC_E2E_FOLDER), and records what a user would see in
;; CHECKSPEC_E2E_OUT/emacs.json: the located diagnostic through flymake, completion of a
;; check kind, the quick fix applied, and the run of the file (the snippet's command).

(require 'package)
(package-initialize)  ; Debian's elpa-eglot and elpa-yaml-mode
(require 'json)
(require 'yaml-mode)

(defvar e2e-seen (make-hash-table :test 'equal))
(defvar e2e-out (getenv "CHECKSPEC_E2E_OUT"))

(defun e2e-save ()
  (with-temp-file (expand-file-name "emacs.json" e2e-out)
    (insert (json-encode e2e-seen))))

(defun e2e-wait (predicate seconds)
  "Pump process output until PREDICATE is non-nil or SECONDS pass; its last value."
  (let ((deadline (+ (float-time) seconds)) value)
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.1))
    value))

(condition-case err
    (progn
      (load-file (getenv "CHECKSPEC_E2E_SNIPPET"))
      (require 'eglot)
      (let* ((folder (getenv "CHECKSPEC_E2E_FOLDER"))
             (file (expand-file-name "refund.scenario.yaml" folder)))
        ;; The typo is in the file on disk: the server reads what the buffer holds.
        (with-temp-buffer
          (insert-file-contents file)
          (goto-char (point-min))
          (search-forward "kind: string_matching")
          (replace-match "kind: string_matchin")
          (write-region nil nil file))
        (find-file file)
        (run-hooks 'post-command-hook)  ; eglot-ensure connects after the next command
        (puthash "initialized"
                 (e2e-wait (lambda () (ignore-errors (eglot-current-server))) 60)
                 e2e-seen)
        (puthash "initialized" (and (gethash "initialized" e2e-seen) "checkspec") e2e-seen)
        ;; The located diagnostic, through flymake.
        (let ((diagnostic
               (e2e-wait
                (lambda ()
                  (seq-find (lambda (d)
                              (string-match-p "unknown check 'string_matchin'"
                                              (flymake-diagnostic-text d)))
                            (flymake-diagnostics)))
                90)))
          (when diagnostic
            (puthash "diagnostic"
                     `((message . ,(flymake-diagnostic-text diagnostic))
                       (line . ,(line-number-at-pos (flymake-diagnostic-beg diagnostic))))
                     e2e-seen)))
        ;; Completion of a check kind after `kind: string_matchin`.
        (goto-char (point-min))
        (search-forward "kind: string_matchin")
        (let* ((capf (eglot-completion-at-point))
               (table (and capf (nth 2 capf)))
               (found (and table (all-completions "" table))))
          (puthash "completion" (vconcat (mapcar #'substring-no-properties found)) e2e-seen))
        ;; The quick fix the server offers on the typo, applied as eglot applies edits.
        (let* ((server (eglot-current-server))
               (diagnostics (seq-filter (lambda (d) (string-match-p "unknown check"
                                                                    (flymake-diagnostic-text d)))
                                        (flymake-diagnostics)))
               (beg (flymake-diagnostic-beg (car diagnostics)))
               (actions (jsonrpc-request
                         server :textDocument/codeAction
                         (list :textDocument (eglot--TextDocumentIdentifier)
                               :range (list :start (eglot--pos-to-lsp-position beg)
                                            :end (eglot--pos-to-lsp-position beg))
                               :context
                               (list :diagnostics
                                     (vconcat
                                      (mapcar (lambda (d)
                                                (alist-get 'eglot-lsp-diag
                                                           (flymake-diagnostic-data d)))
                                              diagnostics))))))
               (fix (seq-find (lambda (a) (string-match-p "string_matching" (plist-get a :title)))
                              actions)))
          (puthash "actions" (vconcat (mapcar (lambda (a) (plist-get a :title)) actions)) e2e-seen)
          (when fix
            (eglot--apply-workspace-edit (plist-get fix :edit))
            (puthash "fixed" (save-excursion
                               (goto-char (point-min))
                               (and (search-forward "kind: string_matching\n" nil t) t))
                     e2e-seen)))
        (save-buffer)
        ;; The snippet's command runs the file; its answer is the run's summary.
        (let* ((server (eglot-current-server))
               (answer (jsonrpc-request server :workspace/executeCommand
                                        (list :command "checkspec.runFile"
                                              :arguments (vector (eglot--path-to-uri buffer-file-name))))))
          (puthash "run" (plist-get answer :status) e2e-seen)
          (puthash "run_scenarios" (length (plist-get answer :scenarios)) e2e-seen))
        (checkspec-run-file)  ; the README's command itself runs without error
        (puthash "command" t e2e-seen)))
  (error (puthash "failure" (format "%S" err) e2e-seen)))

(e2e-save)
(ignore-errors (eglot-shutdown (eglot-current-server)))
(kill-emacs 0)
