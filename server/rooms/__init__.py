"""server.rooms.judge"""
