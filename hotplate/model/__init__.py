"""Vocabulary shared by every layer: ids, states, node keys and records.

Frozen dataclasses and StrEnums only; the standard library is the only import.
"""
