"""lastline.rules"""
