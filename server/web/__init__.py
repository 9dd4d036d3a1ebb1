"""The HTTP edge: the Starlette app and everything it answers.

Owns the app, its routes, security headers and the ``/ws`` route (``app``), the HTTP API's
declarations (``api``) and the OpenAPI document made from them (``openapi``), request guards
and problem documents (``httpguard``), the guarded HTTP/WebSocket protocol and handshake
(``handshake``), the analysis routes (``analysis``) and the client's files and pages, with
their versions and cache policy (``static``).

May import: ``server.live``, ``server.computer``, ``server.store``, ``server.ops``,
``server.rooms``; nothing of ``server.run``.
"""
