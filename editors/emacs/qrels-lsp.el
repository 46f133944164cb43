;;; qrels-lsp.el --- qrels-lsp through eglot: golden sets, runs, TREC qrels/runs  -*- lexical-binding: t; -*-

;; Load it from your init file:  (load "/path/to/qrels-lsp/editors/emacs/qrels-lsp.el")
;; Needs eglot (built in from Emacs 29; `M-x package-install RET eglot` or Debian's elpa-eglot on 28).
;; Golden sets and run YAML get `qrels-yaml-mode', derived from `yaml-mode' (or `yaml-ts-mode')
;; when installed, so YAML highlighting is kept; TREC files get small font-lock modes.

;;; Code:
(require 'eglot)

(defgroup qrels-lsp nil "qrels-lsp language server." :group 'tools)

(defcustom qrels-lsp-command '("qrels-lsp" "serve")
  "The server's command line; `pipx install /path/to/qrels-lsp' puts `qrels-lsp' on PATH."
  :type '(repeat string))

(defcustom qrels-lsp-settings nil
  "The server's \"qrels\" settings as a plist, e.g. (:k 5 :ignore [\"QR110\"]).
Unset keys keep the values of qrels-lsp.toml."
  :type 'plist)

(defconst qrels-lsp--trec-qrels-keywords
  '(("^\\s-*#.*$" . font-lock-comment-face)
    ("^\\s-*\\(\\S-+\\)\\s-+\\(\\S-+\\)\\s-+\\(\\S-+\\)\\s-+\\(-?[0-9]+\\)\\s-*$"
     (1 font-lock-function-name-face) (2 font-lock-keyword-face)
     (3 font-lock-string-face) (4 font-lock-constant-face))
    ("^\\s-*[^#[:space:]].*$" . font-lock-warning-face)))

(defconst qrels-lsp--trec-run-keywords
  '(("^\\s-*#.*$" . font-lock-comment-face)
    ("^\\s-*\\(\\S-+\\)\\s-+\\(\\S-+\\)\\s-+\\(\\S-+\\)\\s-+\\([0-9]+\\)\\s-+\\([-+.0-9eE]+\\)\\s-+\\(\\S-+\\)\\s-*$"
     (1 font-lock-function-name-face) (2 font-lock-keyword-face) (3 font-lock-string-face)
     (4 font-lock-constant-face) (5 font-lock-constant-face) (6 font-lock-type-face))
    ("^\\s-*[^#[:space:]].*$" . font-lock-warning-face)))

(define-derived-mode trec-qrels-mode prog-mode "TREC-qrels"
  "TREC qrels: query-id iteration doc-id grade."
  (setq-local comment-start "# ")
  (setq-local font-lock-defaults '(qrels-lsp--trec-qrels-keywords t)))

(define-derived-mode trec-run-mode prog-mode "TREC-run"
  "TREC run: query-id Q0 doc-id rank score tag."
  (setq-local comment-start "# ")
  (setq-local font-lock-defaults '(qrels-lsp--trec-run-keywords t)))

(defalias 'qrels-lsp--yaml-parent
  (cond ((fboundp 'yaml-mode) #'yaml-mode)
        ((fboundp 'yaml-ts-mode) #'yaml-ts-mode)
        (t #'text-mode)))

(define-derived-mode qrels-yaml-mode qrels-lsp--yaml-parent "YAML[qrels]"
  "YAML golden sets (*.qrels.yaml) and runs (*.run.yaml), checked by qrels-lsp.")

(add-to-list 'auto-mode-alist '("\\.\\(qrels\\|run\\)\\.ya?ml\\'" . qrels-yaml-mode))
(add-to-list 'auto-mode-alist '("\\(\\.qrels\\|/qrels\\)\\(\\.txt\\)?\\'" . trec-qrels-mode))
(add-to-list 'auto-mode-alist '("\\.\\(trec\\|run\\|run\\.txt\\)\\'" . trec-run-mode))

;; Settings go to the server as initializationOptions (a project's qrels-lsp.toml works too).
(add-to-list 'eglot-server-programs
             `((qrels-yaml-mode trec-qrels-mode trec-run-mode)
               . ,(lambda (&rest _)
                    (if qrels-lsp-settings
                        (append qrels-lsp-command
                                (list :initializationOptions (list :qrels qrels-lsp-settings)))
                      qrels-lsp-command))))

(provide 'qrels-lsp)
;;; qrels-lsp.el ends here
