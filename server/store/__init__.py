"""server.store.store"""
