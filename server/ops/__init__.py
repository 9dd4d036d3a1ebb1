"""server.ops"""
