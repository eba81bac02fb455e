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
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    launcher = bin_folder / "cglint"  # `cglint` on PATH, running this working tree
    launcher.write_text("#!/bin/sh\nPYTHONPATH=%s exec %s -m cglint \"$@\"\n"
                        % (ROOT, sys.executable))
    launcher.chmod(0o755)
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
