"""A megabyte of hostile text (tests/hostile_text.py) in each setting, each field of each file
and each name the command line takes: ``check``, ``score`` and ``gate`` answer (an exit code and
output, no traceback), each in a process of its own that is killed at :data:`TIMEOUT`: that kill
is the failure, never a measured duration. A fixed build answers each in seconds; one backtracking
pattern on a megabyte of blanks runs for hours.

The default run puts the blanks of the issue that found the backtracking (``"a" + a megabyte of
spaces + "x"``) in every field at once (quoted, so that each is read) and in every setting at
once, through all three commands. The slow run sweeps every text: each field alone, written as
it comes, through ``check`` (which reads every file of the workspace); each setting alone
through ``score`` (which uses them all); every field and every setting at once through all three.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bounded import CLI, Bounded, run_bounded
from hostile_text import (
    ARGUMENT_BYTES,
    BASE,
    FIELDS,
    SETTING_SHAPES,
    TEXTS,
    MiB,
    cut,
    every_field,
    toml_config,
    with_field,
    write,
)

TIMEOUT = 120.0
"""Seconds of wall time before a command is killed (and the test fails)."""
COMMANDS = {
    "check": ["check", "."],
    "score": ["score", "g.qrels.yaml"],
    "gate": ["gate", "g.qrels.yaml", "--base", "runs/a.run.yaml", "--head", "runs/b.trec"],
}
SETTINGS_ROOM = MiB - 64 * 1024
"""A setting's text in qrels-lsp.toml: a file over a mebibyte is not read at all (QR401)."""


def run(root: Path, command: list[str]) -> Bounded:
    env = {**os.environ, "XDG_CACHE_HOME": str(root.parent / "cache")}
    r = run_bounded([*CLI, *command], cwd=root, env=env, timeout=TIMEOUT)
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert r.returncode in (0, 1, 2), (r.returncode, r.stderr[-3000:])
    assert (r.stdout + r.stderr).strip(), "no answer"
    return r


def workspace(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    return write(tmp_path / "ws", files)


def settings_file(text: str | bytes, keys: tuple[str, ...] | None) -> bytes:
    """qrels-lsp.toml with ``keys`` (default all) holding as much of ``text`` as fits in
    :data:`SETTINGS_ROOM` (each slot's share, when there are several)."""
    room = SETTINGS_ROOM if keys is not None and len(keys) == 1 else SETTINGS_ROOM // 64
    n = room
    while len(config := toml_config(cut(text, n), keys)) > room:
        n = n * room // len(config) - 1
    return config


# -- the default run: the blanks everywhere at once ----------------------------------------------


@pytest.mark.parametrize("command", COMMANDS)
def test_the_blanks_in_every_field_and_setting(tmp_path: Path, command: str) -> None:
    text = TEXTS["blanks"]
    files = every_field(text)
    root = workspace(tmp_path, {**files, "qrels-lsp.toml": settings_file(text, None)})
    run(root, COMMANDS[command])


def test_a_megabyte_metric_name_in_the_settings_file(tmp_path: Path) -> None:
    """The issue's name (``"a"`` + blanks + ``"x"``, the whole room of the file) as a metric in
    qrels-lsp.toml: ``check`` reports it (QR403) and ``score`` scores the other metrics, each in
    seconds, not after minutes of backtracking."""
    config = settings_file(TEXTS["blanks"], ("metrics",))
    assert len(config) > MiB // 2
    root = workspace(tmp_path, {**BASE, "qrels-lsp.toml": config})
    assert "QR403" in run(root, COMMANDS["check"]).stdout
    assert "ndcg@10" in run(root, COMMANDS["score"]).stdout


NAMED = {
    "check --ignore": ["check", ".", "--ignore"],
    "score --metrics": ["score", "g.qrels.yaml", "--metrics"],
    "gate --base": ["gate", "g.qrels.yaml", "--head", "runs/b.trec", "--base"],
    "gate --head": ["gate", "g.qrels.yaml", "--base", "runs/a.run.yaml", "--head"],
    "gate --metric": [*COMMANDS["gate"], "--metric"],
    "gate --critical": [*COMMANDS["gate"], "--critical"],
    "check PATH": ["check"],
}


@pytest.mark.parametrize("option", NAMED)
def test_a_long_name_on_the_command_line_is_refused(tmp_path: Path, option: str) -> None:
    root = workspace(tmp_path, dict(BASE))
    r = run(root, [*NAMED[option], as_argument(TEXTS["blanks"])])
    assert r.returncode == 2 and "more than the 4,096 it may be" in r.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["check", "{}"],
        ["score", "g.qrels.yaml", "{}"],
        ["fuse", "runs/b.trec", "{}", "-o", "fused.trec"],
        ["convert", "runs/b.trec", "-o", "{}.run.yaml"],
        ["check", "--config", "{}", "."],
        ["compare", "g.qrels.yaml", "--base", "{}"],
        ["gate", "g.qrels.yaml", "--base", "{}", "--head", "runs/b.trec"],
    ],
    ids=["check", "score", "fuse", "convert -o", "--config", "compare --base", "gate --base"],
)
def test_a_path_too_long_for_the_system_is_a_usage_error(
    tmp_path: Path, command: list[str]
) -> None:
    """A name of 300 characters (more than a file name may be) made pathlib's exists() and
    is_file() raise: a traceback from each command. (A run's name may be that long: it is then
    looked for among the runs.)"""
    root = workspace(tmp_path, dict(BASE))
    r = run(root, [a.replace("{}", "n" * 300) for a in command])
    assert r.returncode == 2


def as_argument(text: str | bytes) -> str:
    """At most :data:`ARGUMENT_BYTES` of the text as one argument (bytes that are not UTF-8
    reach the command as they are: Python reads them as lone surrogates)."""
    if isinstance(text, bytes):
        return os.fsdecode(cut(text, ARGUMENT_BYTES))
    n, argument = ARGUMENT_BYTES, cut(text, ARGUMENT_BYTES)
    while len(size := argument.encode()) > ARGUMENT_BYTES:
        n = n * ARGUMENT_BYTES // len(size) - 1
        argument = cut(text, n)
    return argument


# -- the slow run: every text, each slot alone ---------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("field", FIELDS)
def test_one_field(tmp_path: Path, field: str, text: str) -> None:
    root = workspace(tmp_path, with_field(dict(BASE), field, TEXTS[text]))
    run(root, COMMANDS["check"])


@pytest.mark.slow
@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("key", SETTING_SHAPES)
def test_one_setting(tmp_path: Path, key: str, text: str) -> None:
    config = settings_file(TEXTS[text], (key,))
    root = workspace(tmp_path, {**BASE, "qrels-lsp.toml": config})
    run(root, COMMANDS["score"])


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("text", TEXTS)
def test_every_field_and_setting(tmp_path: Path, text: str, command: str) -> None:
    files = every_field(TEXTS[text])
    root = workspace(tmp_path, {**files, "qrels-lsp.toml": settings_file(TEXTS[text], None)})
    run(root, COMMANDS[command])


@pytest.mark.slow
@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("option", NAMED)
def test_every_name_on_the_command_line(tmp_path: Path, option: str, text: str) -> None:
    root = workspace(tmp_path, dict(BASE))
    r = run(root, [*NAMED[option], as_argument(TEXTS[text])])
    assert r.returncode == 2
