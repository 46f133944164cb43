"""The editor-agnostic core: plain data in, plain data out. Never imports pygls or lsprotocol."""
