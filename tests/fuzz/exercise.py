"""Every request the server supports, on one document version, with the answers checked.

Beyond "answered without an internal error", the answers must make sense for the text: every
range lies inside the document (in the negotiated position encoding), and every edit the server
offers (quick fixes, judge actions, rename, completion) applies cleanly, the edits of one
document never overlap, and the lines outside the edited ranges stay byte-identical, line
breaks included.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from lsp.applyedits import apply_text_edits, offset_of
from lsprotocol import types
from pygls.uris import to_fs_path

from .driver import Server

_BREAK = re.compile(r"\r\n|\r|\n")


class Broken(AssertionError):
    """An answer that is wrong for the text (a range outside it, an edit that damages it)."""


def position_at(text: str, offset: int, encoding: str) -> types.Position:
    """The LSP position of a code point offset, counted independently of the server."""
    starts = [0] + [m.end() for m in _BREAK.finditer(text)]
    line = max(i for i, s in enumerate(starts) if s <= offset)
    col = text[starts[line] : offset]
    if encoding == "utf-8":
        n = len(col.encode("utf-8", "surrogatepass"))
    elif encoding == "utf-16":
        n = len(col.encode("utf-16-le", "surrogatepass")) // 2
    else:
        n = len(col)
    return types.Position(line=line, character=n)


def check_range(text: str, rng: types.Range, encoding: str, what: str) -> tuple[int, int]:
    try:
        start, end = offset_of(text, rng.start, encoding), offset_of(text, rng.end, encoding)
    except AssertionError as exc:
        raise Broken(f"{what}: range {rng} is not inside the document ({exc})") from None
    if start > end:
        raise Broken(f"{what}: range {rng} ends before it starts")
    return start, end


def _lines(text: str) -> list[str]:
    return re.split(r"(?<=\n)|(?<=\r)(?!\n)", text)


def check_local_edits(before: str, edits: list[types.TextEdit], encoding: str, what: str) -> str:
    """Apply ``edits`` as a client does and check that they left the rest of the text alone."""
    for e in edits:
        check_range(before, e.range, encoding, what)
    try:
        after = apply_text_edits(before, edits, encoding)
    except AssertionError as exc:
        raise Broken(f"{what}: edits do not apply cleanly ({exc})") from None
    if not edits:
        return after
    first = min(e.range.start.line for e in edits)
    last = max(e.range.end.line for e in edits)
    a, b = [x for x in _lines(before) if x], [x for x in _lines(after) if x]
    if a[:first] != b[:first]:
        raise Broken(f"{what}: a line before the edited range changed")
    tail = len(a) - last - 1
    if tail > 0 and a[len(a) - tail :] != b[len(b) - tail :]:
        raise Broken(f"{what}: a line after the edited range changed")
    breaks = set(_BREAK.findall(before))
    if breaks == {"\r\n"}:
        for e in edits:
            if re.search(r"(?<!\r)\n|\r(?!\n)", e.new_text):
                raise Broken(f"{what}: inserts a bare line break into a CRLF document")
    return after


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def _disk(uri: str) -> str | None:
    fs = to_fs_path(uri)
    try:
        return Path(fs).read_bytes().decode("utf-8") if fs else None
    except (OSError, UnicodeDecodeError):
        return None


def check_workspace_edit(
    edit: types.WorkspaceEdit | None, uri: str, text: str, encoding: str, what: str
) -> None:
    if edit is None:
        return
    changes = list(edit.document_changes or [])
    if edit.changes:
        changes += [
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=u, version=None),
                edits=list(es),
            )
            for u, es in edit.changes.items()
        ]
    seen: dict[str, str] = {}
    for change in changes:
        if not isinstance(change, types.TextDocumentEdit):
            raise Broken(f"{what}: a file operation ({type(change).__name__}) in an edit")
        target = change.text_document.uri
        base = seen.get(target)
        if base is None:
            base = text if target == uri else _disk(target)
        if base is None:
            continue  # a file that is not UTF-8 text on disk: nothing to compare against
        edits = [e for e in change.edits if isinstance(e, types.TextEdit)]
        seen[target] = check_local_edits(base, edits, encoding, f"{what} in {target}")


def _positions(rng: random.Random, text: str, encoding: str, n: int) -> list[types.Position]:
    out = [position_at(text, rng.randint(0, len(text)), encoding) for _ in range(n)]
    tokens = list(re.finditer(r"[\w./-]+", text))
    for m in rng.sample(tokens, min(n, len(tokens))):
        out.append(position_at(text, rng.randint(m.start(), m.end()), encoding))
    # Out of range on purpose: LSP asks servers to clamp.
    out.append(types.Position(line=10**6, character=5))
    out.append(types.Position(line=0, character=10**6))
    return out


def exercise(
    server: Server, uri: str, text: str, version: int, rng: random.Random, *, pushed: bool = True
) -> int:
    """Every request on one document version; returns the number of requests sent.

    Raises :class:`Broken` for a wrong answer; failures of the server itself (no answer, an
    internal error, a traceback) are collected by ``server.problems()``.
    """
    enc = server.encoding
    sent = 0
    diags = server.diagnostics(uri, version, timeout=30 if pushed else 2, required=pushed) or []
    sent += 1
    for d in diags:
        check_range(text, d.range, enc, f"diagnostic {d.code}")

    lenses = server.request(
        types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensParams(text_document=_doc(uri))
    ).result
    sent += 1
    for lens in lenses or []:
        check_range(text, lens.range, enc, "code lens")
    commands = [lens.command for lens in lenses or [] if lens.command and lens.command.command]
    for command in rng.sample(commands, min(3, len(commands))):
        answer = server.request(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command=command.command, arguments=command.arguments),
        )
        sent += 1
        if answer.error is not None:
            raise Broken(f"the lens command {command.command} failed: {answer.error}")
    junk: list[Any] = rng.choice([[], [42], [{"path": "/dev/zero", "qid": "x"}], [None], ["x"]])
    server.request(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command="qrels-lsp.explainQuery", arguments=junk),
    )
    sent += 1

    end = position_at(text, len(text), enc)
    whole = types.Range(start=types.Position(line=0, character=0), end=end)
    hints = server.request(
        types.TEXT_DOCUMENT_INLAY_HINT,
        types.InlayHintParams(text_document=_doc(uri), range=whole),
    ).result
    sent += 1
    for h in hints or []:
        check_range(text, types.Range(start=h.position, end=h.position), enc, "inlay hint")

    symbols = server.request(
        types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
        types.DocumentSymbolParams(text_document=_doc(uri)),
    ).result
    sent += 1
    stack = list(symbols or [])
    while stack:
        s = stack.pop()
        if isinstance(s, types.DocumentSymbol):
            check_range(text, s.range, enc, "document symbol")
            check_range(text, s.selection_range, enc, "document symbol selection")
            stack.extend(s.children or [])
        elif s.location.uri == uri:
            check_range(text, s.location.range, enc, "symbol information")
    server.request(
        types.WORKSPACE_SYMBOL,
        types.WorkspaceSymbolParams(query=rng.choice(["", "e", "login", "😀", "zz q"])),
    )
    sent += 1

    for pos in _positions(rng, text, enc, 3):
        td = _doc(uri)
        hover = server.request(
            types.TEXT_DOCUMENT_HOVER, types.HoverParams(text_document=td, position=pos)
        ).result
        if hover is not None and hover.range is not None:
            check_range(text, hover.range, enc, "hover")
        completion = server.request(
            types.TEXT_DOCUMENT_COMPLETION,
            types.CompletionParams(text_document=td, position=pos),
        ).result
        items = getattr(completion, "items", completion) or []
        for item in rng.sample(list(items), min(5, len(items))):
            edit = item.text_edit
            if isinstance(edit, types.TextEdit):
                what = f"completion {item.label!r}"
                if edit.range.start.line != edit.range.end.line:
                    raise Broken(f"{what}: a multi-line completion edit")
                check_local_edits(text, [edit], enc, what)
        for method, params in (
            (
                types.TEXT_DOCUMENT_DEFINITION,
                types.DefinitionParams(text_document=td, position=pos),
            ),
            (
                types.TEXT_DOCUMENT_REFERENCES,
                types.ReferenceParams(
                    text_document=td,
                    position=pos,
                    context=types.ReferenceContext(include_declaration=rng.random() < 0.5),
                ),
            ),
        ):
            for loc in server.request(method, params).result or []:
                if isinstance(loc, types.Location) and loc.uri == uri:
                    check_range(text, loc.range, enc, method)
        prepared = server.request(
            types.TEXT_DOCUMENT_PREPARE_RENAME,
            types.PrepareRenameParams(text_document=td, position=pos),
        ).result
        sent += 5
        if prepared is not None:
            rng_ = getattr(prepared, "range", prepared)
            if isinstance(rng_, types.Range):
                check_range(text, rng_, enc, "prepareRename")
            new = rng.choice(["renamed-q", "日本-😀", "a b", "x: y", "", "#c", "q'"])
            answer = server.request(
                types.TEXT_DOCUMENT_RENAME,
                types.RenameParams(text_document=td, position=pos, new_name=new),
            )
            sent += 1
            check_workspace_edit(answer.result, uri, text, enc, f"rename to {new!r}")

    ranges = [d.range for d in diags]
    for _ in range(3):
        a, b = sorted(rng.randint(0, len(text)) for _ in range(2))
        ranges.append(types.Range(start=position_at(text, a, enc), end=position_at(text, b, enc)))
    for r in ranges:
        context = types.CodeActionContext(diagnostics=[d for d in diags if d.range == r])
        actions = server.request(
            types.TEXT_DOCUMENT_CODE_ACTION,
            types.CodeActionParams(text_document=_doc(uri), range=r, context=context),
        ).result
        sent += 1
        for action in actions or []:
            if isinstance(action, types.CodeAction):
                check_workspace_edit(action.edit, uri, text, enc, f"code action {action.title!r}")
    return sent
