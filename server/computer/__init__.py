"""server.computer.pool"""
