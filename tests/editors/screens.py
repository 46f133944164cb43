"""Screenshots of terminal editors: a tmux pane captured with its colours (`capture-pane -e`),
turned into HTML here, and photographed by headless Chromium. What is drawn is exactly the
cells tmux holds for the editor; only the font is the browser's."""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
FG, BG = "#e0e2ea", "#14161b"  # Neovim 0.10+ default dark Normal
_BASIC = [
    "#07080d", "#ffc0b9", "#b3f6c0", "#fce094", "#a6dbff", "#ffcaff", "#8cf8f7", "#eef1f8",
    "#4f5258", "#ffc0b9", "#b3f6c0", "#fce094", "#a6dbff", "#ffcaff", "#8cf8f7", "#ffffff",
]  # fmt: skip


def _xterm(n: int) -> str:
    if n < 16:
        return _BASIC[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return f"#{steps[n // 36]:02x}{steps[(n // 6) % 6]:02x}{steps[n % 6]:02x}"
    v = 8 + 10 * (n - 232)
    return f"#{v:02x}{v:02x}{v:02x}"


def _color(params: list[int], i: int) -> tuple[str | None, int]:
    """A 38/48 extended colour starting at params[i] (the 5 or 2); returns (colour, next index)."""
    if i < len(params) and params[i] == 5 and i + 1 < len(params):
        return _xterm(params[i + 1]), i + 2
    if i < len(params) and params[i] == 2 and i + 3 < len(params):
        r, g, b = params[i + 1 : i + 4]
        return f"#{r:02x}{g:02x}{b:02x}", i + 4
    return None, len(params)


_SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def ansi_to_html(text: str, title: str = "") -> str:
    state: dict[str, object] = {}
    out: list[str] = []
    pos = 0

    def emit(chunk: str) -> None:
        if not chunk:
            return
        fg, bg = state.get("fg"), state.get("bg")
        if state.get("reverse"):
            fg, bg = bg or BG, fg or FG
        style = []
        if fg:
            style.append(f"color:{fg}")
        if bg:
            style.append(f"background:{bg}")
        if state.get("bold"):
            style.append("font-weight:bold")
        if state.get("italic"):
            style.append("font-style:italic")
        if state.get("underline"):
            style.append("text-decoration:underline" + (" wavy" if state["underline"] == 3 else ""))
        escaped = html.escape(chunk)
        out.append(f'<span style="{";".join(style)}">{escaped}</span>' if style else escaped)

    for m in _SGR.finditer(text):
        emit(text[pos : m.start()])
        pos = m.end()
        raw = m.group(1)
        # `4:3` (undercurl) and friends: keep the first sub-parameter's meaning
        params: list[int] = []
        for part in raw.split(";") if raw else ["0"]:
            if ":" in part:
                head, *sub = part.split(":")
                if head == "4":
                    state["underline"] = int(sub[0] or 1) if sub else 1
                    continue
                part = head
            params.append(int(part) if part.isdigit() else 0)
        i = 0
        while i < len(params):
            p = params[i]
            i += 1
            if p == 0:
                state.clear()
            elif p == 1:
                state["bold"] = True
            elif p == 3:
                state["italic"] = True
            elif p == 4:
                state["underline"] = 1
            elif p == 7:
                state["reverse"] = True
            elif p == 22:
                state.pop("bold", None)
            elif p == 23:
                state.pop("italic", None)
            elif p == 24:
                state.pop("underline", None)
            elif p == 27:
                state.pop("reverse", None)
            elif 30 <= p <= 37:
                state["fg"] = _BASIC[p - 30]
            elif 90 <= p <= 97:
                state["fg"] = _BASIC[p - 90 + 8]
            elif 40 <= p <= 47:
                state["bg"] = _BASIC[p - 40]
            elif 100 <= p <= 107:
                state["bg"] = _BASIC[p - 100 + 8]
            elif p in (38, 48, 58):
                colour, i = _color(params, i)
                if colour and p != 58:
                    state["fg" if p == 38 else "bg"] = colour
            elif p == 39:
                state.pop("fg", None)
            elif p == 49:
                state.pop("bg", None)
    emit(text[pos:])
    body = "".join(out)
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>"
        f"html,body{{margin:0;background:{BG}}}"
        f"pre{{margin:0;padding:6px;color:{FG};background:{BG};"
        "font:13px/1.25 'DejaVu Sans Mono','Liberation Mono',monospace;white-space:pre}"
        "</style></head><body><pre>" + body + "</pre></body></html>"
    )


def html_to_png(page: Path, png: Path, width: int, height: int, env: dict[str, str]) -> None:
    """Headless Chromium's own --screenshot (no driver needed)."""
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={page.parent / 'chromium-profile'}",
        f"--window-size={width},{height}",
        f"--screenshot={png}",
        page.as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert png.is_file(), proc.stderr[-2000:]
