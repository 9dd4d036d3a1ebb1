"""server.run"""
