"""nyumba's server: a thin, well-guarded adapter between the engine, Redis and WebSockets."""
