"""A TCP proxy a test can stall: while stalled it stops forwarding in both directions but keeps
every socket open (as dead Wi-Fi does: nothing closes, nothing arrives). New connections made
while stalled are accepted and then ignored. ``resume()`` forwards again (for new connections;
the stalled ones stay dead, as a real dead link's would).

It also reads the WebSocket messages it forwards: ``sent`` holds every text message a client
sent (unmasked), and ``lose_states(n)`` swallows the next ``n`` ``state`` (or ``moved``: a
move's state) messages from the server while everything else passes, as a server whose fan-out lost them would;
``lose_states_until_join()`` swallows every ``state`` until a client next sends ``join``."""

from __future__ import annotations

import socket
import threading


class StallProxy:
    def __init__(self, target_host: str, target_port: int):
        self.target = (target_host, target_port)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.generation = 0  # bumped by stall(): pumps of older generations stop forwarding
        self.stalled = False
        self.sockets: list[socket.socket] = []
        self.closed = False
        self.sent: list[bytes] = []  # text messages clients sent, in order
        self.to_lose = 0  # server state messages still to swallow
        self.until_join = False  # swallow state messages until a client joins again
        self.lost: list[bytes] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stall(self) -> None:
        self.stalled = True
        self.generation += 1

    def resume(self) -> None:
        self.stalled = False

    def lose_states(self, n: int = 1) -> None:
        self.to_lose = n

    def lose_states_until_join(self) -> None:
        self.until_join = True

    def joins(self) -> int:
        """How many ``join`` messages clients have sent."""
        return sum(b'"t":"join"' in m for m in self.sent)

    def close(self) -> None:
        self.closed = True
        for s in [self.listener, *self.sockets]:
            try:
                s.close()
            except OSError:
                pass

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self.sockets.append(client)
            if self.stalled:
                continue  # accepted, never answered
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            self.sockets.append(upstream)
            gen = self.generation
            for a, b, up in ((client, upstream, True), (upstream, client, False)):
                threading.Thread(target=self._pump, args=(a, b, gen, up), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, gen: int, up: bool) -> None:
        reading = _Frames()
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if self.generation != gen:
                    return  # stalled: swallow everything from now on, close nothing
                out = []
                for raw, text in reading.feed(data):
                    if text is not None and up:
                        self.sent.append(text)
                        if b'"t":"join"' in text:
                            self.until_join = False  # its answer passes
                    elif text is not None and (b'"t":"state"' in text or b'"t":"moved"' in text):
                        with self.lock:
                            lose = self.to_lose > 0 or self.until_join
                            self.to_lose -= self.to_lose > 0
                        if lose:
                            self.lost.append(text)
                            continue
                    out.append(raw)
                if out:
                    dst.sendall(b"".join(out))
        except OSError:
            return
        if self.generation == gen:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass


class _Frames:
    """One direction of a WebSocket connection: the HTTP head as it is, then whole frames,
    each with its text if it is an unfragmented text message."""

    def __init__(self) -> None:
        self.buf = b""
        self.head_done = False
        self.websocket = False  # False after a plain HTTP head: everything passes as it is

    def feed(self, data: bytes) -> list[tuple[bytes, bytes | None]]:
        if self.head_done and not self.websocket:
            return [(data, None)]
        self.buf += data
        out: list[tuple[bytes, bytes | None]] = []
        if not self.head_done:
            end = self.buf.find(b"\r\n\r\n")
            if end == -1:
                return out
            head = self.buf[: end + 4]
            out.append((head, None))
            self.buf, self.head_done = self.buf[end + 4 :], True
            lower = head.lower()
            self.websocket = b"upgrade: websocket" in lower or lower.startswith(b"http/1.1 101")
            if not self.websocket:
                out.append((self.buf, None))
                self.buf = b""
                return out
        while len(self.buf) >= 2:
            b0, b1 = self.buf[0], self.buf[1]
            n, at = b1 & 0x7F, 2
            if n >= 126:
                width = 2 if n == 126 else 8
                if len(self.buf) < at + width:
                    break
                n, at = int.from_bytes(self.buf[at : at + width], "big"), at + width
            key = b""
            if b1 & 0x80:
                key, at = self.buf[at : at + 4], at + 4
            if len(self.buf) < at + n:
                break
            payload = self.buf[at : at + n]
            if key:
                payload = bytes(c ^ key[i % 4] for i, c in enumerate(payload))
            text = payload if b0 == 0x81 else None  # FIN + text
            out.append((self.buf[: at + n], text))
            self.buf = self.buf[at + n :]
        return out
