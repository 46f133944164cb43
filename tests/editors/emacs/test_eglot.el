;; Emacs (Debian emacs-nox 28 + elpa-eglot 1.9), batch: editors/emacs/qrels-lsp.el, the real server.
;; emacs --batch -Q -l test_eglot.el  with QRELS_EL, QRELS_LSP_BIN, QRELS_FILE, QRELS_ROOT
(package-activate-all)                      ; Debian's elpa-* under /usr/share/emacs/site-lisp/elpa
(load (getenv "QRELS_EL"))
(setq qrels-lsp-command (list (getenv "QRELS_LSP_BIN") "serve"))
;; no VCS in the scratch workspace: a transient project, so eglot does not prompt for a root
(add-hook 'project-find-functions (lambda (_dir) (cons 'transient (getenv "QRELS_ROOT"))))
(defun out (fmt &rest args) (princ (concat (apply #'format fmt args) "\n")))
(defun wait-for (pred secs)
  (let ((n 0))
    (while (and (not (funcall pred)) (< n (* 10 secs))) (accept-process-output nil 0.1) (setq n (1+ n)))
    (funcall pred)))
(find-file (getenv "QRELS_FILE"))
(out "MODE %s" major-mode)
;; eglot-ensure waits for a command loop that batch mode has not: start it as M-x eglot does
(apply #'eglot (eglot--guess-contact))
(unless (wait-for (lambda () (eglot-current-server)) 60) (out "FAIL: no server") (kill-emacs 3))
;; diagnostics settle: the same list for 1.5 s
(let ((last nil) (stable 0))
  (wait-for (lambda ()
              (let ((now (mapcar (lambda (d) (flymake-diagnostic-beg d)) (flymake-diagnostics))))
                (if (and now (equal now last)) (setq stable (1+ stable)) (setq stable 0 last now))
                (>= stable 15)))
            60))
(unless (flymake-diagnostics) (out "FAIL: no diagnostics") (kill-emacs 4))
(dolist (d (flymake-diagnostics))
  (out "DIAG %d %d %s %s"
       (1- (line-number-at-pos (flymake-diagnostic-beg d)))
       (save-excursion (goto-char (flymake-diagnostic-beg d)) (current-column))
       (flymake-diagnostic-type d)
       (replace-regexp-in-string "\n" " " (flymake-diagnostic-text d))))
(ignore-errors (eglot-shutdown (eglot-current-server)))
(out "DONE")
(kill-emacs 0)
