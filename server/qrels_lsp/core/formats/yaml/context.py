"""Where in the YAML schema an offset is, on text that may be half typed and not parse.

Completion runs while the user types, so the text is usually invalid YAML at that moment
(``relevant: [kb/fa`` has no closing bracket). This module does not use the YAML parser: it reads
the text line by line, by indentation (block mappings and ``-`` lists), and character by
character inside flow collections (``[...]``, ``{...}``), recovering from an unclosed flow
collection at the next line indented no deeper than the line that opened it. The result is the
path of keys from the root to the collection holding the offset, whether the offset is at a key,
a list item or a value, the token being typed there, and the other entries of that collection.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ...base.patterns import (
    BLANK_HASH,
    BLOCK_SCALAR,
    BLOCK_TOKEN_STOP,
    COMMENT_HASH,
    FLOW_TOKEN_STOP,
    KEY_COLON,
    PLAIN_STOP,
    QUOTED_KEY_COLON,
)
from ...base.text import LineIndex, Span

Role = Literal["key", "item", "value"]


@dataclass(frozen=True, slots=True)
class Entry:
    """A key or an item of a collection, as written (unquoted), with its inline value if any."""

    path: tuple[str, ...]  # the collection it belongs to
    role: Literal["key", "item"]
    text: str
    span: Span  # of the text (inside the quotes when quoted)
    value: str | None = None  # a key's inline scalar value (comment and quotes stripped)
    flow: bool = False


@dataclass(frozen=True, slots=True)
class YamlContext:
    """What is at the cursor.

    ``path`` is the collection holding the cursor (for ``value``: the key whose value it is,
    last). ``token`` spans the key, item or value being typed, possibly empty at the cursor;
    ``entries`` are the collection's other keys or items, in file order.
    """

    path: tuple[str, ...]
    role: Role
    token: Span
    prefix: str
    flow: bool
    quoted: bool
    entries: tuple[Entry, ...]
    block_list: bool = False  # a block collection whose entries are `- ` items
    closing: str = ""  # the quote a quoted token still lacks (`"24` typed, `]` after it)
    quote: str = ""  # the quote the token is inside (`"`, `'`), if quoted
    keyed: bool = False  # a key's `:` follows the token already (`kb/fa|q.md: 3`)


@dataclass(slots=True)
class _Frame:
    indent: int
    key: str | None  # None: a `- ` item
    has_value: bool = False
    block_scalar: bool = False


@dataclass(slots=True)
class _Flow:
    kind: str  # "[" or "{"
    path: tuple[str, ...]
    expect: Literal["key", "item", "value"]
    key: str | None = None


@dataclass(slots=True)
class _State:
    at: int
    path: tuple[str, ...]
    role: Role | None  # None: outside any collection position (after a closed flow)


@dataclass(slots=True)
class _Scan:
    text: str
    cursor: int
    entries: list[Entry] = field(default_factory=list)
    context: tuple[tuple[str, ...], Role, Span, bool, bool] | None = None
    block_list_paths: set[tuple[str, ...]] = field(default_factory=set)


def _unquote(s: str) -> str:
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        inner = s[1:-1]
        return inner.replace("''", "'") if s[0] == "'" else inner.replace('\\"', '"')
    return s


def _split_key(content: str) -> tuple[str, int, int, int] | None:
    """``key: rest`` -> (key as written, key start, key end, value start) within ``content``."""
    if not content or content[0] == "#":
        return None
    if content[0] in "'\"":
        q = content[0]
        i = 1
        while i < len(content):
            if content[i] == "\\" and q == '"':
                i += 2
                continue
            if content[i] == q:
                if q == "'" and content[i + 1 : i + 2] == "'":
                    i += 2
                    continue
                break
            i += 1
        end = i + 1
        m = QUOTED_KEY_COLON.match(content, end)
        if m is None:
            return None
        rest = m.end()
        while rest < len(content) and content[rest] in " \t":
            rest += 1
        return content[:end], 0, end, rest
    if content[0] in "[{":
        return None
    comment = BLANK_HASH.search(content)
    limit = comment.start() if comment else len(content)
    m = KEY_COLON.search(content, 0, limit)
    if m is None:
        return None
    key = content[: m.start()].rstrip()
    if not key:
        return None
    rest = m.end()
    while rest < len(content) and content[rest] in " \t":
        rest += 1
    return key, 0, len(key), rest


def _strip_value(raw: str) -> str:
    m = BLANK_HASH.search(raw)  # a comment: what precedes its blanks is the value
    value = raw[: m.start()] if m else raw
    return _unquote(value.strip())


def _token_at(text: str, start: int, cursor: int, flow: bool) -> tuple[Span, bool]:
    """The token around ``cursor`` that begins at or after ``start`` (a key, id or value)."""
    quoted = start < len(text) and text[start] in "'\"" and start < cursor
    if quoted:
        start += 1
    m = (FLOW_TOKEN_STOP if flow else BLOCK_TOKEN_STOP).search(text, cursor)
    end = m.start() if m else len(text)
    return Span(start, max(cursor, end)), quoted


def _path_of(frames: list[_Frame]) -> tuple[str, ...]:
    return tuple(f.key for f in frames if f.key is not None)


def scan(text: str, cursor: int | None) -> _Scan:
    """Entries of every collection, and the context at ``cursor`` (if given)."""
    lines = LineIndex(text)
    s = _Scan(text, -1 if cursor is None else cursor)
    frames: list[_Frame] = []
    flows: list[_Flow] = []
    states: list[_State] = []
    flow_owner_indent = -1
    cursor_line = lines.line_of(cursor) if cursor is not None else -1
    block_scalar_indent: int | None = None

    for n in range(lines.line_count):
        start, end = lines.line_start(n), lines.line_end(n)
        line = text[start:end]
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if block_scalar_indent is not None:
            blank_cursor = n == cursor_line and not stripped and cursor is not None
            if blank_cursor:
                indent = s.cursor - start  # the cursor's column decides where a blank line is
            if (not stripped and not blank_cursor) or indent > block_scalar_indent:
                continue
            block_scalar_indent = None
        if flows:
            if stripped and not stripped.startswith("#") and indent <= flow_owner_indent:
                flows.clear()  # an unclosed `[`: the next block line ends it (half-typed text)
            else:
                _flow_chars(s, flows, states, start, end, n == cursor_line)
                continue
        if n == cursor_line:
            _cursor_block_line(s, frames, start, s.cursor)
        if not stripped or stripped.startswith("#"):
            continue
        col = indent
        content_start = start + indent
        rest = line[indent:]
        is_dash = rest == "-" or rest.startswith(("- ", "-\t"))
        owner_path: tuple[str, ...]
        if is_dash:
            while frames and (
                frames[-1].indent > col
                or (frames[-1].indent == col and (frames[-1].key is None or frames[-1].has_value))
            ):
                frames.pop()
            owner_path = _path_of(frames)
            s.block_list_paths.add(owner_path)
            frames.append(_Frame(col, None, True))
            skip = 1
            while skip < len(rest) and rest[skip] in " \t":
                skip += 1
            col += skip
            content_start += skip
            rest = rest[skip:]
            if not rest or rest.startswith("#"):
                continue
        else:
            while frames and frames[-1].indent >= col:
                frames.pop()
            owner_path = _path_of(frames)
        split = _split_key(rest)
        if split is None:
            if is_dash:
                if rest[0] in "[{":
                    flow_owner_indent = indent
                    flows.append(_Flow(rest[0], owner_path, "item" if rest[0] == "[" else "key"))
                    states.append(_State(content_start + 1, flows[-1].path, flows[-1].expect))
                    _flow_chars(s, flows, states, content_start + 1, end, n == cursor_line)
                else:
                    value = _strip_value(rest)
                    vstart = content_start + (1 if rest[0] in "'\"" else 0)
                    s.entries.append(
                        Entry(owner_path, "item", value, Span(vstart, vstart + len(value)))
                    )
            continue
        key_raw, _ks, key_end, value_at = split
        key = _unquote(key_raw)
        quoted_key = key_raw[:1] in "'\""
        kstart = content_start + (1 if quoted_key else 0)
        kend = content_start + key_end - (1 if quoted_key else 0)
        value_raw = rest[value_at:]
        has_value = bool(value_raw) and not value_raw.startswith("#")
        frames.append(_Frame(col, key, has_value))
        inline = None
        if has_value and value_raw[0] not in "[{":
            inline = _strip_value(value_raw)
        s.entries.append(Entry(owner_path, "key", key, Span(kstart, kend), inline))
        if has_value and BLOCK_SCALAR.match(value_raw):
            block_scalar_indent = col
            continue
        if has_value and value_raw[0] in "[{":
            flow_owner_indent = indent
            opener = content_start + value_at
            path = (*owner_path, key)
            flows.append(_Flow(value_raw[0], path, "item" if value_raw[0] == "[" else "key"))
            states.append(_State(opener + 1, path, flows[-1].expect))
            _flow_chars(s, flows, states, opener + 1, end, n == cursor_line)
    return s


def _cursor_block_line(
    s: _Scan,
    frames: list[_Frame],
    line_start: int,
    cursor: int,
) -> None:
    """The cursor's context on a block line (flow parts are handled by the flow scanner)."""
    text = s.text
    before = text[line_start:cursor]
    stripped = before.lstrip(" ")
    col = len(before) - len(stripped)
    if "#" in before and COMMENT_HASH.search(before):
        return
    fs = list(frames)
    if stripped.startswith(("- ", "-\t")):
        while fs and (
            fs[-1].indent > col
            or (fs[-1].indent == col and (fs[-1].key is None or fs[-1].has_value))
        ):
            fs.pop()
        owner: tuple[str, ...] = _path_of(fs)
        skip = 1
        while skip < len(stripped) and stripped[skip] in " \t":
            skip += 1
        item_start = line_start + col + skip
        after = stripped[skip:]
        if _split_key(after) is not None:
            return  # `- key: value` inside a list: no schema position of ours
        if after[:1] in ("[", "{"):
            return  # the flow scanner decides
        token, quoted = _token_at(text, item_start, cursor, False)
        s.context = (owner, "item", token, False, quoted)
        return
    while fs and fs[-1].indent >= col:
        fs.pop()
    owner = _path_of(fs)
    split = _split_key(stripped)
    if split is not None:
        key_raw, _ks, _ke, value_at = split
        value_raw = stripped[value_at:]
        if value_raw[:1] in ("[", "{"):
            return  # the flow scanner decides
        token, quoted = _token_at(text, line_start + col + value_at, cursor, False)
        s.context = ((*owner, _unquote(key_raw)), "value", token, False, quoted)
        return
    if stripped[:1] in ("[", "{"):
        return
    token, quoted = _token_at(text, line_start + col, cursor, False)
    s.context = (owner, "key", token, False, quoted)


def _flow_chars(
    s: _Scan,
    flows: list[_Flow],
    states: list[_State],
    i: int,
    end: int,
    cursor_line: bool,
) -> None:
    """Scan flow content from ``i`` to the end of the line, recording entries and states."""
    text = s.text
    while i < end and flows:
        c = text[i]
        if c in " \t":
            i += 1
            continue
        if c == "#" and (i == 0 or text[i - 1] in " \t\n\r"):
            break
        top = flows[-1]
        if c in "[{":
            path = (*top.path, top.key) if top.kind == "{" and top.key else top.path
            flows.append(_Flow(c, path, "item" if c == "[" else "key"))
            i += 1
            states.append(_State(i, path, flows[-1].expect))
            continue
        if c in "]}":
            flows.pop()
            i += 1
            if flows:
                states.append(_State(i, flows[-1].path, None))
            else:
                states.append(_State(i, top.path, None))
            continue
        if c == ",":
            if top.kind == "{":
                top.expect, top.key = "key", None
            i += 1
            states.append(_State(i, top.path, top.expect))
            continue
        if c == ":" and (i + 1 >= end or text[i + 1] in " \t,[]{}"):
            if top.kind == "{":
                top.expect = "value"
            i += 1
            vpath = (*top.path, top.key) if top.kind == "{" and top.key else top.path
            states.append(_State(i, vpath, "value" if top.kind == "{" else None))
            continue
        # a scalar
        if c in "'\"":
            j = i + 1
            while j < end:
                if text[j] == "\\" and c == '"':
                    j += 2
                    continue
                if text[j] == c:
                    if c == "'" and text[j + 1 : j + 2] == "'":
                        j += 2
                        continue
                    break
                j += 1
            close = min(j, end)
            value = _unquote(text[i : close + 1]) if j < end else text[i + 1 : end]
            span = Span(i + 1, close)
            nxt = close + 1
        else:
            m = PLAIN_STOP.search(text, i, end)
            stop = m.start() if m else end
            raw = text[i:stop].rstrip()
            value = raw
            span = Span(i, i + len(raw))
            nxt = stop
        if top.kind == "[":
            s.entries.append(Entry(top.path, "item", value, span, flow=True))
        elif top.expect == "key":
            s.entries.append(Entry(top.path, "key", value, span, flow=True))
            top.key = value
        elif top.expect == "value" and s.entries and s.entries[-1].path == top.path:
            last = s.entries[-1]
            s.entries[-1] = Entry(last.path, last.role, last.text, last.span, value, True)
        i = nxt
    if cursor_line and s.context is None:
        _flow_cursor(s, states)


def _flow_cursor(s: _Scan, states: list[_State]) -> None:
    cursor = s.cursor
    for e in reversed(s.entries):
        if e.flow and e.span.start <= cursor <= e.span.end:
            quoted = e.span.start > 0 and s.text[e.span.start - 1] in "'\""
            token, _q = _token_at(s.text, e.span.start, cursor, True)
            if not (quoted and _closing(s.text, e.span.start, e.span.end)):
                # (an unclosed quote runs to the end of the line: its token stops where a
                # plain one would, so the `]` after it is not replaced)
                token = Span(e.span.start, max(e.span.end, token.end))
            s.context = (e.path, e.role, token, True, quoted)
            return
    state = None
    for st in states:
        if st.at <= cursor:
            state = st
        else:
            break
    if state is None or state.role is None:
        return
    if state.role == "value":
        token, quoted = _token_at(s.text, cursor, cursor, True)
        s.context = (state.path, "value", token, True, quoted)
        return
    token, quoted = _token_at(s.text, cursor, cursor, True)
    s.context = (state.path, state.role, token, True, quoted)


def context_at(text: str, offset: int) -> YamlContext | None:
    """The schema position at ``offset``; None in a comment or where no collection is open."""
    offset = max(0, min(offset, len(text)))
    s = scan(text, offset)
    if s.context is None:
        return None
    path, role, token, flow, quoted = s.context
    if role == "value":
        entries: tuple[Entry, ...] = ()
    else:
        entries = tuple(
            e
            for e in s.entries
            if e.path == path
            and not (e.span.start <= offset <= e.span.end and e.span == token)
            and not (token.start <= e.span.start <= token.end and e.span.end <= token.end)
        )
    prefix = text[token.start : max(token.start, offset)]
    closing = _closing(text, token.start, token.end) if quoted else ""
    after = token.end + (1 if quoted and not closing else 0)
    return YamlContext(
        path=path,
        role=role,
        token=token,
        prefix=prefix,
        flow=flow,
        quoted=quoted,
        entries=entries,
        block_list=path in s.block_list_paths,
        closing=closing,
        quote=text[token.start - 1] if quoted else "",
        keyed=role == "key" and _colon_at(text, after, flow),
    )


def _colon_at(text: str, at: int, flow: bool) -> bool:
    """Whether the next thing at ``at`` (blanks skipped) is a key's `:` indicator."""
    while at < len(text) and text[at] in " \t":
        at += 1
    if text[at : at + 1] != ":":
        return False
    nxt = text[at + 1 : at + 2]
    return not nxt or nxt in " \t\r\n" or (flow and nxt in ",[]{}")


def _closing(text: str, start: int, end: int) -> str:
    """The quote that opened the token at ``start`` if nothing at ``end`` closes it."""
    quote = text[start - 1] if start > 0 else ""
    return quote if text[end : end + 1] != quote else ""


def entries_of(text: str, path: tuple[str, ...]) -> list[Entry]:
    """Every key or item recorded in the collection at ``path`` (the whole text)."""
    return [e for e in scan(text, None).entries if e.path == path]


def keys_under(key: str) -> Callable[[str], list[tuple[str, Span]]]:
    """The query ids of a YAML format whose queries are the keys of the top-level ``key``
    (``queries:``, ``results:``), read from the text alone so a broken file still has them."""

    def ids(text: str) -> list[tuple[str, Span]]:
        return [(e.text, e.span) for e in entries_of(text, (key,)) if e.role == "key"]

    return ids
