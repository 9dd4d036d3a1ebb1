"""server.web"""
