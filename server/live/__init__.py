"""server.live"""
