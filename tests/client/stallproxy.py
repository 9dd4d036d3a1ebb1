"""A TCP proxy a test can stall: while stalled it stops forwarding in both directions but keeps
every socket open (as dead Wi-Fi does: nothing closes, nothing arrives). New connections made
while stalled are accepted and then ignored. ``resume()`` forwards again (for new connections;
the stalled ones stay dead, as a real dead link's would)."""

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
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stall(self) -> None:
        self.stalled = True
        self.generation += 1

    def resume(self) -> None:
        self.stalled = False

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
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b, gen), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, gen: int) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if self.generation != gen:
                    return  # stalled: swallow everything from now on, close nothing
                dst.sendall(data)
        except OSError:
            return
        if self.generation == gen:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass
