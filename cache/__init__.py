"""lastline.cache"""
