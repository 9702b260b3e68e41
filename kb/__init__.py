"""lastline.kb"""
