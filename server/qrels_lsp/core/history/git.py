"""Files as a git revision holds them, read without running anything of the repository's.

A repository is untrusted input. Its ``.git/config`` may name programs that git runs on its
behalf: ``core.fsmonitor`` (run by any command that reads the index), hooks, a filter driver's
``clean``/``smudge`` and a diff driver's ``textconv`` (applied through ``.gitattributes`` by
``show``, ``diff``, ``log -p``, ``cat-file --filters``/``--textconv``), an ``ssh`` command or a
promisor remote's fetch (a partial clone fetches a blob it lacks). So git is called here, and
nowhere else in qrels-lsp, and always the same way (:func:`command`, :func:`environment`):

    git --no-pager --no-optional-locks -c core.fsmonitor=false -c core.hooksPath=/dev/null
        -c protocol.allow=never <plumbing>

- the plumbing is one of ``rev-parse``, ``symbolic-ref``, ``merge-base`` and ``cat-file -s`` /
  ``cat-file blob``: commands that read objects and refs only. None reads the index (so no
  fsmonitor), none applies attributes (so no filter or textconv), none writes (so no hook);
- the environment keeps none of the user's ``GIT_*`` variables (no ``GIT_DIR`` pointing
  elsewhere, no ``GIT_CONFIG_*`` adding settings), sets ``GIT_CONFIG_NOSYSTEM=1`` and
  ``GIT_CONFIG_GLOBAL=/dev/null`` and points ``HOME`` and ``XDG_CONFIG_HOME`` at ``/dev/null``
  (older gits read ``~/.gitconfig`` regardless): no alias, include or helper of anyone's;
  ``GIT_NO_LAZY_FETCH=1`` and ``protocol.allow=never`` (nothing is fetched, no network),
  ``GIT_TERMINAL_PROMPT=0`` (nothing asked), ``LC_ALL=C`` (messages as written here);
- stdin is closed, each call has a timeout, a revision given by a user or a setting is checked
  before it reaches git (never an option: it may not start with ``-``), and a blob's size is
  asked before it is read (no more than the editor holds of any file).

A git missing from ``PATH``, a folder outside any checkout, a revision that does not exist or
a repository git refuses (another user's: "dubious ownership") is a :class:`GitError` whose
message says so; nothing here raises anything else.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..base.files import MAX_TEXT_BYTES, TOO_LARGE, MiB, resolve, text_of

OPTIONS = (
    "--no-pager",
    "--no-optional-locks",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "protocol.allow=never",
)
TIMEOUT_S = 30.0
MAX_REVISION = 256
"""Characters of a revision given by a user or a setting (``main``, ``HEAD~3``, a hash)."""
AUTO = "auto"
"""The base revision when none is named: the merge base of ``HEAD`` and the default branch."""


class GitError(Exception):
    """Why a revision cannot be read, in words for the user."""


def environment() -> dict[str, str]:
    """The environment every git call gets (see the module's docstring)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        HOME=os.devnull,
        XDG_CONFIG_HOME=os.devnull,
        GIT_NO_LAZY_FETCH="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
        LC_ALL="C",
    )
    return env


def command(*args: str) -> list[str]:
    """The argument vector of a git call: the binary on ``PATH``, :data:`OPTIONS`, ``args``."""
    exe = shutil.which("git")
    if exe is None:
        raise GitError("git is not installed (no `git` on PATH): reading a revision needs it")
    return [exe, *OPTIONS, *args]


def _run(folder: Path, *args: str) -> tuple[int, bytes, str]:
    """(exit status, stdout, stderr's last line) of one git call in ``folder``."""
    try:
        done = subprocess.run(
            command(*args),
            cwd=folder,
            env=environment(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {args[0]} took more than {TIMEOUT_S:.0f} s") from exc
    except OSError as exc:
        raise GitError(f"cannot run git in {folder}: {exc.strerror or exc}") from exc
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return done.returncode, done.stdout, lines[-1] if lines else ""


def revision_problem(rev: str) -> str | None:
    """Why ``rev`` is not a revision to hand to git (None: it may be)."""
    if not rev or len(rev) > MAX_REVISION:
        return f"a revision is 1 to {MAX_REVISION} characters"
    if rev.startswith("-"):
        return "a revision may not start with `-`"
    if any(c.isspace() or not c.isprintable() for c in rev):
        return "a revision holds no blank or control character"
    return None


def base_setting(value: object) -> str | None:
    """The ``diff_base`` setting's value: :data:`AUTO`, a revision, or None for off (``"off"``,
    ``false``); ValueError says what is wrong with any other."""
    if value is False or value == "off":
        return None
    if not isinstance(value, str):
        raise ValueError('expected "auto", a git revision such as "main", or "off"')
    problem = revision_problem(value.strip())
    if problem is not None:
        raise ValueError(f"not a revision: {problem}")
    return value.strip()


@dataclass(frozen=True, slots=True)
class Revision:
    """A commit a golden set is compared with: how it is named (``main``, ``HEAD~1``) and its
    full hash."""

    label: str
    commit: str

    @property
    def short(self) -> str:
        return self.commit[:7]


@dataclass(slots=True)
class Repository:
    """A git checkout, by the top folder of its work tree; blobs read are kept by commit and
    path (a commit never changes)."""

    root: Path
    _blobs: dict[tuple[str, str], tuple[str | None, str | None]] = field(default_factory=dict)

    @classmethod
    def of(cls, path: Path) -> Repository:
        """The checkout ``path`` (a file or folder) is in."""
        folder = path if path.is_dir() else path.parent
        if not folder.is_dir():
            raise GitError(f"{folder} is not a folder")
        code, out, err = _run(folder, "rev-parse", "--show-toplevel")
        if code != 0 or not out.strip():
            if "not a git repository" in err:
                raise GitError(f"{folder} is not in a git checkout: there is no revision to read")
            raise GitError(f"git cannot read the repository of {folder}: {err or 'no top folder'}")
        return cls(resolve(Path(os.fsdecode(out.rstrip(b"\n")))))

    def commit(self, rev: str) -> str:
        """The full hash of the commit ``rev`` names."""
        problem = revision_problem(rev)
        if problem is not None:
            raise GitError(f"{rev!r} is not a revision: {problem}")
        code, out, _err = _run(self.root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        if code != 0:
            raise GitError(f"no commit {rev!r} in the repository at {self.root}")
        return out.decode("ascii", "replace").strip()

    def default_branch(self) -> str:
        """``origin/HEAD``'s branch, else ``main``, else ``master``."""
        code, out, _ = _run(
            self.root, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"
        )
        if code == 0 and out.strip():
            return out.decode("utf-8", "replace").strip()
        for name in ("main", "master"):
            if _run(self.root, "rev-parse", "--verify", "--quiet", f"refs/heads/{name}")[0] == 0:
                return name
        raise GitError("no default branch (neither origin/HEAD, main nor master): name a revision")

    def base(self, rev: str = AUTO) -> Revision:
        """The revision ``rev`` names; :data:`AUTO`: the merge base of ``HEAD`` and the default
        branch (labelled by the branch)."""
        if rev != AUTO:
            return Revision(rev, self.commit(rev))
        branch = self.default_branch()
        head = self.commit("HEAD")
        code, out, err = _run(self.root, "merge-base", head, self.commit(branch))
        if code != 0 or not out.strip():
            raise GitError(f"HEAD and {branch} have no merge base{': ' + err if err else ''}")
        return Revision(branch, out.decode("ascii", "replace").strip())

    def relative(self, path: Path) -> str | None:
        """``path`` as git names it in a tree (None: it is not in this work tree)."""
        try:
            return resolve(path).relative_to(self.root).as_posix()
        except ValueError:
            return None

    def read(self, commit: str, path: Path) -> tuple[str | None, str | None]:
        """The text of ``path`` in ``commit``, or why there is none (as ``read_text`` says it)."""
        name = self.relative(path)
        if name is None:
            return None, f"outside the repository at {self.root}"
        key = (commit, name)
        hit = self._blobs.get(key)
        if hit is None:
            hit = self._blobs[key] = self._read(commit, name)
        return hit

    def _read(self, commit: str, name: str) -> tuple[str | None, str | None]:
        code, out, _ = _run(self.root, "cat-file", "-s", f"{commit}:{name}")
        if code != 0:
            return None, f"not in {commit[:7]}"
        try:
            size = int(out.strip())
        except ValueError:
            return None, f"git gave no size for {name} in {commit[:7]}"
        if size > MAX_TEXT_BYTES:
            return None, f"{TOO_LARGE} {MAX_TEXT_BYTES // MiB} MiB"
        code, out, err = _run(self.root, "cat-file", "blob", f"{commit}:{name}")
        if code != 0:
            return None, f"not a file in {commit[:7]}{': ' + err if err else ''}"
        return text_of(out, name)

    def reader(self, commit: str) -> RevisionReader:
        return RevisionReader(self, commit)


@dataclass(frozen=True, slots=True)
class RevisionReader:
    """A project's reader (``core/project/files.py``'s ``Reader``) that reads each file as
    ``commit`` holds it."""

    repository: Repository
    commit: str

    def __call__(self, path: Path) -> tuple[str | None, str | None]:
        return self.repository.read(self.commit, path)
