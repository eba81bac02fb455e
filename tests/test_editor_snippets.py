"""The README's editor snippets, run in the real editor where it is installed here."""
import os
import shutil
import subprocess
import sys

import pytest

from snippets import BAD

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALE = "/usr/share/vim-ale"  # Debian's vim-ale package


def readme_block(heading, language):
    """The first ```language block after the paragraph starting with `heading`."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    return text.split(heading, 1)[1].split("```%s\n" % language, 1)[1].split("```")[0]


def cglint_on_path(tmp_path):
    """A folder holding a `cglint` command that runs this working tree."""
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    launcher = bin_folder / "cglint"
    launcher.write_text("#!/bin/sh\nPYTHONPATH=%s exec %s -m cglint \"$@\"\n"
                        % (ROOT, sys.executable))
    launcher.chmod(0o755)
    return bin_folder


# Vim script that waits for ALE's findings on the buffer, writes them to $RESULT and quits
# (after 60 s with none, it writes nothing).
REPORT = r"""
function! Report(timer) abort
  let l:items = ale#engine#GetLoclist(bufnr(''))
  if empty(l:items) && reltimefloat(reltime(g:started)) < 60
    return
  endif
  call writefile(map(copy(l:items),
  \ {_, i -> i.linter_name . ':' . i.lnum . ':' . i.col . ': ' . i.text}), $RESULT)
  qall!
endfunction
let g:started = reltime()
call timer_start(200, 'Report', {'repeat': -1})
"""


@pytest.mark.skipif(shutil.which("vim") is None or not os.path.isdir(ALE),
                    reason="needs vim and ALE (apt-get install vim-ale)")
def test_ale_snippet_shows_findings_in_vim(tmp_path):
    bin_folder = cglint_on_path(tmp_path)
    vimrc = tmp_path / "vimrc"
    vimrc.write_text(
        "set nocompatible\nset runtimepath^=%s\nfiletype plugin on\n"
        "let g:ale_linters = {'python': ['cglint']}\n" % ALE
        + readme_block("**Vim** with ALE", "vim") + REPORT)
    project = tmp_path / "project"  # no setup.cfg or pyproject: the file's folder is root
    project.mkdir()
    (project / "model.py").write_text(BAD)
    result = tmp_path / "result"
    env = dict(os.environ, PATH=str(bin_folder) + os.pathsep + os.environ["PATH"],
               RESULT=str(result))
    with open(str(tmp_path / "screen"), "wb") as screen:
        # Standard input stays open (vim quits at its end), the screen goes to a file.
        vim = subprocess.Popen(["vim", "-N", "-u", str(vimrc), "-i", "NONE", "-n",
                                "--not-a-term", "model.py"], cwd=str(project), env=env,
                               stdin=subprocess.PIPE, stdout=screen, stderr=screen)
        try:
            vim.wait(timeout=90)
        finally:
            if vim.poll() is None:
                vim.kill()
            vim.stdin.close()
    assert result.read_text().splitlines() == [
        "cglint:5:26: `f` takes 1 tensor input but its gradient function `lambda` returns "
        "2 gradients"]


# Emacs Lisp that starts eglot on the buffer as `M-x eglot` would (eglot-ensure waits for a
# command loop, which batch mode has not), waits for cglint's diagnostics in the JSON-RPC
# events log, and writes that log to $RESULT.
EGLOT_RUN = r"""
(require 'eglot)
(find-file (expand-file-name "model.py" default-directory))
(python-mode)
(apply #'eglot (eglot--guess-contact))
(let ((deadline (+ (float-time) 60)) (log nil))
  (while (and (not log) (< (float-time) deadline))
    (accept-process-output nil 0.2)
    (let ((server (eglot-current-server)))
      (when server
        (with-current-buffer (jsonrpc-events-buffer server)
          (goto-char (point-min))
          (when (search-forward ":code \"CG103\"" nil t)
            (setq log (buffer-string)))))))
  (with-temp-file (getenv "RESULT") (insert (or log "no diagnostics"))))
(kill-emacs 0)
"""


def emacs_with_eglot():
    if shutil.which("emacs") is None:
        return False
    done = subprocess.run(["emacs", "--batch", "-q", "--eval", "(require 'eglot)"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    return done.returncode == 0


@pytest.mark.skipif(not emacs_with_eglot(),
                    reason="needs Emacs with eglot (apt-get install emacs-nox elpa-eglot)")
def test_eglot_snippet_gets_diagnostics_in_emacs(tmp_path):
    bin_folder = cglint_on_path(tmp_path)
    init = tmp_path / "init.el"
    init.write_text(readme_block("**Emacs**", "elisp") + EGLOT_RUN)
    project = tmp_path / "project"
    project.mkdir()
    (project / "model.py").write_text(BAD)
    result = tmp_path / "result"
    env = dict(os.environ, PATH=str(bin_folder) + os.pathsep + os.environ["PATH"],
               RESULT=str(result))
    # -q, not -Q: Debian's site files put the packaged eglot on the load path.
    subprocess.run(["emacs", "--batch", "-q", "-l", str(init)], cwd=str(project), env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    log = result.read_text()
    assert ':method "textDocument/publishDiagnostics"' in log
    assert (':message "`f` takes 1 tensor input but its gradient function `lambda` returns '
            '2 gradients" :severity 1 :code "CG103"') in log
