"""The web view at ``/ui``: the page's files, its session cookie, its live event stream.

The page itself is built from ``ui/`` into ``static/``; this package serves it,
logs its user in with the API's own authentication, and streams a stack's
events from the engine (README, "Web view").
"""
