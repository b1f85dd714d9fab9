"""scoring/_report"""
