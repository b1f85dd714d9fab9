"""formatkit/_reading"""
