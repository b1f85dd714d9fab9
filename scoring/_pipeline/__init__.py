"""scoring/_pipeline"""
