"""formatkit/_core"""
