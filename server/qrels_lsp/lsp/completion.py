"""(being written)"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import QrelsServer


def register(server: QrelsServer) -> None:
    return None
