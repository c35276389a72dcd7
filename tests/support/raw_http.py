"""Reading one HTTP/1.1 answer off a raw socket, for the tests that speak HTTP by hand (the
framing, the server's own behaviour, the cost order on the served stack)."""

from __future__ import annotations

import socket


def read_answer(sock: socket.socket, buf: bytes = b"") -> tuple[int, dict[str, str], bytes, bytes]:
    """One answer from ``sock`` (by length or chunked); what came after it."""
    while b"\r\n\r\n" not in buf:
        data = sock.recv(65536)
        assert data, f"closed before a whole head: {buf!r}"
        buf += data
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
    if "content-length" in headers:
        n = int(headers["content-length"])
        while len(rest) < n:
            rest += sock.recv(65536)
        return status, headers, rest[:n], rest[n:]
    if headers.get("transfer-encoding") == "chunked":
        body = b""
        while True:
            while b"\r\n" not in rest:
                rest += sock.recv(65536)
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line, 16)
            while len(rest) < size + 2:
                rest += sock.recv(65536)
            body, rest = body + rest[:size], rest[size + 2 :]
            if size == 0:
                return status, headers, body, rest
    return status, headers, b"", rest
