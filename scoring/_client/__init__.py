"""scoring/_client"""
