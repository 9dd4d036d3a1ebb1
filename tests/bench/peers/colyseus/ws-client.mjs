// Imported before @colyseus/sdk: the SDK takes Node's built-in WebSocket when there is one
// (Node 22 and later) and the `ws` package otherwise. Removing the built-in keeps the generator
// the same client on every Node, and `ws` lets it count the bytes its sockets receive.
delete globalThis.WebSocket;
