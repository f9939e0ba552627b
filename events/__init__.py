"""Typed events and the domain models they carry.

Everything here is a frozen pydantic model and free of I/O: actors publish
and consume these, adapters translate them to and from the outside world.
"""
