"""Comparing: a reference answer against a model's, strict and lenient, once both are read.

The comparator is :func:`.answers.compare`; values, relations, lists and what the problem gives
have one module each. Names are imported from their modules, never re-exported here.
"""
