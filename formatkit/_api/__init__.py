"""formatkit/_api"""
