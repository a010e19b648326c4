"""One module per ClickHouse table: its NAME, its CREATE_SQL and why it is keyed the way it is.

Every statement here must run on ClickHouse 18.16 (the local and CI server) and on current releases:
no DateTime64, no codecs, no Map, no window functions. Times are UInt32 unix seconds or UInt64 microseconds.
"""
