"""scoring/_runner"""
